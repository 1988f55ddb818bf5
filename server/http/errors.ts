/**
 * One mapping from errors to HTTP responses for every route handler (the browser's
 * routes and the automation API alike): typed codes decide the status, never the
 * message text, and validation errors carry their first MAX_REPORTED_ISSUES issues
 * and a count of the rest (a hostile body can hold hundreds of thousands). The codes
 * and their statuses are listed once, in protocol/rest/errors.ts; the errors that
 * carry them are BatonErrors (protocol/errors.ts).
 */
import type { z } from "zod";
import { IssueCollector, MAX_REPORTED_ISSUES } from "../core/errors.ts";
import { isDatabaseUnreachable } from "../db/database-errors.ts";
import { log } from "../observability/log.ts";
import { BatonError, isBatonError } from "../protocol/errors.ts";
import { ERROR_STATUS, isErrorCode, type ApiErrorBody, type ErrorCode } from "../protocol/rest/errors.ts";

/** A refusal decided at the HTTP edge (a bad body, a rate limit…): a BatonError with a status and headers. */
export class HttpError<C extends ErrorCode = ErrorCode> extends BatonError<C> {
  constructor(
    /** must be the code's status (ERROR_STATUS): a mismatch fails typecheck */
    readonly status: (typeof ERROR_STATUS)[C],
    code: C,
    message: string,
    readonly headers?: Record<string, string>,
    details?: unknown,
  ) {
    super(code, message, { details });
    this.name = "HttpError";
  }
}

function errorBody(code: ErrorCode, message: string, extra: Omit<ApiErrorBody["error"], "code" | "message">): ApiErrorBody {
  return { error: { code, message, ...extra } };
}

/**
 * Errors of the core, which sits below the protocol and so cannot be BatonErrors, carry
 * a protocol code too (PlanValidationError: plan_invalid, FormAnswerError:
 * form_answer_invalid); recognised by that code.
 */
function coreErrorCode(error: unknown): ErrorCode | null {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && isErrorCode(code) ? code : null;
}

export function errorResponse(error: unknown): Response {
  if (isBatonError(error) && error.code !== "internal") {
    const omitted = error instanceof InvalidInputError && error.omittedIssues > 0 ? { omittedIssues: error.omittedIssues } : {};
    return Response.json(
      errorBody(error.code, error.message, { ...(error.details === undefined ? {} : { details: error.details }), ...omitted }),
      { status: ERROR_STATUS[error.code], headers: error instanceof HttpError ? error.headers : undefined },
    );
  }
  const code = coreErrorCode(error);
  if (code !== null && code !== "internal") {
    return Response.json(errorBody(code, (error as Error).message, boundedIssues(error)), { status: ERROR_STATUS[code] });
  }
  if (isDatabaseUnreachable(error)) {
    // an outage, not a bug: a warning, and an answer the person can act on (nothing was stored)
    log.warn({ err: error }, "a request failed: the database is unreachable");
    return Response.json(errorBody("unavailable", DATABASE_UNREACHABLE_MESSAGE, {}), {
      status: ERROR_STATUS.unavailable,
      headers: { "retry-after": String(DATABASE_RETRY_AFTER_S) },
    });
  }
  log.error({ err: error }, "unhandled route error");
  return Response.json(errorBody("internal", "Something went wrong.", {}), { status: 500 });
}

/** what a request that found the database unreachable answers (503): nothing was stored */
export const DATABASE_UNREACHABLE_MESSAGE = "Baton cannot reach its database right now, so nothing was saved. Try again in a moment.";
const DATABASE_RETRY_AFTER_S = 5;

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
