/**
 * Shared plumbing of the automation API (/api/v1): bearer-token and signed-body
 * authentication; errors and parsing come from errors.ts like every route's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { getRuntime, type Runtime } from "../runtime.ts";
import { errorResponse, HttpError } from "./errors.ts";
import type { Actor } from "../auth/actor.ts";

export { errorResponse, HttpError, parseJson } from "./errors.ts";

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

/** The automation API acts as its seeded user, a plain member of the conversations it is in. */
export function apiActor(runtime: Runtime): Actor {
  return { id: runtime.apiUserId, role: "member" };
}

export async function requireApiConversation(runtime: Runtime, conversationId: string): Promise<void> {
  const member = await runtime.services.isMember({ conversationId, userId: runtime.apiUserId });
  if (!member) throw new HttpError(404, "not_found", "conversation was not found");
}
