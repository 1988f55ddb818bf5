/**
 * One mapping from errors to HTTP responses for every route handler (the browser's
 * routes and the automation API alike): typed codes decide the status, never the
 * message text, and validation errors carry their first MAX_REPORTED_ISSUES issues
 * and a count of the rest (a hostile body can hold hundreds of thousands). The codes
 * and their statuses are listed once, in protocol/rest/errors.ts.
 */
import type { z } from "zod";
import { IssueCollector, MAX_REPORTED_ISSUES } from "../core/errors.ts";
import { log } from "../observability/log.ts";
import { ERROR_STATUS, isErrorCode, type ApiErrorBody, type ErrorCode } from "../protocol/rest/errors.ts";

export class HttpError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    /** must be the code's status (ERROR_STATUS): a mismatch fails typecheck */
    readonly status: (typeof ERROR_STATUS)[C],
    readonly code: C,
    message: string,
    readonly headers?: Record<string, string>,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** (`instanceof` alone would type the code as any) */
function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}

function errorBody(code: ErrorCode, message: string, extra: Omit<ApiErrorBody["error"], "code" | "message">): ApiErrorBody {
  return { error: { code, message, ...extra } };
}

export function errorResponse(error: unknown): Response {
  if (isHttpError(error)) {
    const omitted = error instanceof InvalidInputError && error.omittedIssues > 0 ? { omittedIssues: error.omittedIssues } : {};
    return Response.json(
      errorBody(error.code, error.message, { ...(error.details === undefined ? {} : { details: error.details }), ...omitted }),
      {
        status: error.status,
        headers: error.headers,
      },
    );
  }
  // coded errors of the core and the services (BatonError, PlanValidationError, …)
  const code = (error as { code?: unknown } | null)?.code;
  if (isErrorCode(code) && code !== "internal") {
    const message = error instanceof Error ? error.message : code;
    return Response.json(errorBody(code, message, boundedIssues(error)), { status: ERROR_STATUS[code] });
  }
  log.error({ err: error }, "unhandled route error");
  return Response.json(errorBody("internal", "Something went wrong.", {}), { status: 500 });
}

/** A coded error's issues as the body lists them: at most MAX_REPORTED_ISSUES, the rest counted. */
function boundedIssues(error: unknown): Pick<ApiErrorBody["error"], "issues" | "omittedIssues"> {
  const { issues, omittedIssues } = error as { issues?: unknown; omittedIssues?: unknown };
  if (!Array.isArray(issues)) return {};
  const omitted = (typeof omittedIssues === "number" ? omittedIssues : 0) + Math.max(0, issues.length - MAX_REPORTED_ISSUES);
  return { issues: issues.slice(0, MAX_REPORTED_ISSUES), ...(omitted > 0 ? { omittedIssues: omitted } : {}) };
}

/**
 * 400 for input that failed its zod schema: the first MAX_REPORTED_ISSUES issues, each
 * with its path, in the message and in `details`, and a count of the others.
 */
export function invalidInput(error: z.ZodError): InvalidInputError {
  const collector = new IssueCollector<{ path: string; message: string }>();
  for (const issue of error.issues) collector.pushLazy(() => ({ path: issue.path.join("."), message: issue.message }));
  const more = collector.omitted > 0 ? `; … and ${collector.omitted} more` : "";
  const message = collector.kept.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ") + more;
  return new InvalidInputError(message, collector.kept, collector.omitted);
}

/** A 400 whose `details` are the listed issues; `omittedIssues` counts those left out. */
export class InvalidInputError extends HttpError<"invalid_input"> {
  constructor(
    message: string,
    issues: { path: string; message: string }[],
    readonly omittedIssues: number,
  ) {
    super(400, "invalid_input", message, undefined, issues);
  }
}
