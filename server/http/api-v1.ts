/**
 * Shared plumbing of the automation API (/api/v1): bearer-token authentication,
 * zod parsing, and one mapping from typed error codes to HTTP statuses.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { PlanValidationError, FormAnswerError } from "../core/errors.ts";
import { BatonError } from "../executor/errors.ts";
import { getRuntime, type Runtime } from "../runtime.ts";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const STATUS_BY_CODE: Record<string, number> = {
  not_found: 404,
  invalid_input: 400,
  form_closed: 409,
  conflict: 409,
  forbidden: 403,
};

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    return Response.json({ error: { code: error.code, message: error.message, details: error.details } }, { status: error.status });
  }
  if (error instanceof PlanValidationError || error instanceof FormAnswerError) {
    return Response.json({ error: { code: error.code, message: error.message, issues: error.issues } }, { status: 422 });
  }
  if (error instanceof BatonError) {
    return Response.json({ error: { code: error.code, message: error.message } }, { status: STATUS_BY_CODE[error.code] ?? 400 });
  }
  console.error("[api]", error);
  return Response.json({ error: { code: "internal", message: "internal error" } }, { status: 500 });
}

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * For webhooks: accepts the bearer token, or an `X-Baton-Signature: sha256=<hex>` HMAC
 * of the raw body with BATON_WEBHOOK_SECRET (what CI systems and code hosts send).
 * Returns the raw body, which the caller parses.
 */
export async function withSignedBody(
  request: Request,
  handle: (runtime: Runtime, body: string) => Promise<Response>,
): Promise<Response> {
  try {
    const runtime = getRuntime();
    const body = await request.text();
    const signature = request.headers.get("x-baton-signature") ?? "";
    const secret = runtime.config.webhookSecret;
    if (secret && signature.startsWith("sha256=")) {
      const expected = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      if (!tokenMatches(signature, expected)) throw new HttpError(401, "unauthorized", "the signature does not match the body");
      return await handle(runtime, body);
    }
    return await withApiToken(request, (authorised) => handle(authorised, body));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Runs a /api/v1 handler: checks the bearer token, maps every error to a JSON response. */
export async function withApiToken(request: Request, handle: (runtime: Runtime) => Promise<Response>): Promise<Response> {
  try {
    const runtime = getRuntime();
    const expected = runtime.config.apiToken;
    if (!expected) throw new HttpError(503, "api_disabled", "the automation API is off: set BATON_API_TOKEN");
    const header = request.headers.get("authorization") ?? "";
    const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    if (!given || !tokenMatches(given, expected)) throw new HttpError(401, "unauthorized", "missing or wrong bearer token");
    return await handle(runtime);
  } catch (error) {
    return errorResponse(error);
  }
}

export async function parseJson<T>(request: Request | string, schema: z.ZodType<T>): Promise<T> {
  let body: unknown;
  try {
    body = typeof request === "string" ? JSON.parse(request) : await request.json();
  } catch {
    throw new HttpError(400, "invalid_json", "the request body is not valid JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    throw new HttpError(400, "invalid_input", issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; "), issues);
  }
  return parsed.data;
}

export async function requireApiConversation(runtime: Runtime, conversationId: string): Promise<void> {
  const member = await runtime.services.isMember({ conversationId, userId: runtime.apiUserId });
  if (!member) throw new HttpError(404, "not_found", "conversation was not found");
}
