/**
 * One mapping from errors to HTTP responses for every route handler (the browser's
 * routes and the automation API alike): typed codes decide the status, never the
 * message text, and validation errors carry their issues.
 */
import type { z } from "zod";

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
  console.error("[baton] unhandled route error", error);
  return Response.json({ error: { code: "internal", message: "Something went wrong." } }, { status: 500 });
}

/** Parses a JSON body (or an already-read one) with a zod schema; 400 names the field. */
export async function parseJson<T extends z.ZodType>(request: Request | string, schema: T): Promise<z.infer<T>> {
  let raw: unknown;
  try {
    raw = typeof request === "string" ? JSON.parse(request) : await request.json();
  } catch {
    throw new HttpError(400, "invalid_input", "Body must be JSON.");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    const message = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");
    throw new HttpError(400, "invalid_input", message, undefined, issues);
  }
  return parsed.data;
}
