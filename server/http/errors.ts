/**
 * One mapping from errors to HTTP responses for every route handler (the browser's
 * routes and the automation API alike): typed codes decide the status, never the
 * message text, and validation errors carry their issues.
 */
import { log } from "../ops/log.ts";
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const STATUS_BY_CODE: Record<string, number> = {
  plan_invalid: 422,
  form_answer_invalid: 422,
  form_closed: 409,
  not_found: 404,
  invalid_input: 400,
  forbidden: 403,
  unauthenticated: 401,
  conflict: 409,
  too_large: 413,
};

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    return Response.json(
      { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } },
      { status: error.status, headers: error.headers },
    );
  }
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code in STATUS_BY_CODE) {
    const message = error instanceof Error ? error.message : code;
    const issues = (error as { issues?: unknown }).issues;
    return Response.json({ error: { code, message, ...(Array.isArray(issues) ? { issues } : {}) } }, { status: STATUS_BY_CODE[code] });
  }
  log.error({ err: error }, "unhandled route error");
  return Response.json({ error: { code: "internal", message: "Something went wrong." } }, { status: 500 });
}
