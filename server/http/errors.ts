/**
 * One mapping from errors to HTTP responses for every route handler (the browser's
 * routes and the automation API alike): typed codes decide the status, never the
 * message text, and validation errors carry their issues. The codes and their
 * statuses are listed once, in protocol/rest/errors.ts.
 */
import { log } from "../ops/log.ts";
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
    return Response.json(errorBody(error.code, error.message, error.details === undefined ? {} : { details: error.details }), {
      status: error.status,
      headers: error.headers,
    });
  }
  // coded errors of the core and the services (BatonError, PlanValidationError, …)
  const code = (error as { code?: unknown } | null)?.code;
  if (isErrorCode(code) && code !== "internal") {
    const message = error instanceof Error ? error.message : code;
    const issues = (error as { issues?: unknown }).issues;
    return Response.json(errorBody(code, message, Array.isArray(issues) ? { issues } : {}), { status: ERROR_STATUS[code] });
  }
  log.error({ err: error }, "unhandled route error");
  return Response.json(errorBody("internal", "Something went wrong.", {}), { status: 500 });
}
