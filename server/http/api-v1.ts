/**
 * Shared plumbing of the automation API (/api/v1): bearer-token and signed-body
 * authentication (the bootstrap BATON_API_TOKEN or personal access tokens, see
 * auth/api-tokens.ts); errors and parsing come from errors.ts like every route's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { getRuntime, type Runtime } from "../runtime.ts";
import { errorResponse, HttpError } from "./errors.ts";
import { scopeAllows, TOKEN_PREFIX, verifyApiToken, type TokenScope } from "../auth/api-tokens.ts";
import { enforceRateLimit, TOKEN_WRITE_RATE } from "../auth/rate-limit.ts";

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

/** Who a /api/v1 request acts as: the bootstrap token (the automation user) or a personal token. */
export interface ApiPrincipal {
  kind: "bootstrap" | "personal";
  tokenId: string;
  userId: string;
  userRole: "admin" | "member";
  scopes: TokenScope[];
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

async function authenticate(runtime: Runtime, request: Request): Promise<ApiPrincipal> {
  const header = request.headers.get("authorization") ?? "";
  const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  if (given.startsWith(TOKEN_PREFIX)) {
    const personal = await verifyApiToken(runtime.prisma, given);
    if (!personal) throw new HttpError(401, "unauthorized", "the token is unknown, revoked or expired");
    return { kind: "personal", ...personal };
  }
  const expected = runtime.config.apiToken;
  if (!expected) throw new HttpError(503, "api_disabled", "the automation API is off: set BATON_API_TOKEN or use a personal access token");
  if (!given || !tokenMatches(given, expected)) throw new HttpError(401, "unauthorized", "missing or wrong bearer token");
  // the bootstrap token acts as the automation user, which sees only conversations it was added to
  return { kind: "bootstrap", tokenId: "bootstrap", userId: runtime.apiUserId, userRole: "member", scopes: ["read", "write"] };
}

/**
 * Runs a /api/v1 handler: authenticates the bearer token, checks its scope (`read` for
 * GET, `write` otherwise, or the one given), counts writes against the token's rate
 * limit, and hands the handler a runtime whose `apiUserId` is the token's user.
 */
export async function withApiToken(
  request: Request,
  handle: (runtime: Runtime, principal: ApiPrincipal) => Promise<Response>,
  options: { scope?: TokenScope } = {},
): Promise<Response> {
  try {
    const runtime = getRuntime();
    const principal = await authenticate(runtime, request);
    const write = !SAFE_METHODS.has(request.method.toUpperCase());
    const needed = options.scope ?? (write ? "write" : "read");
    if (!scopeAllows(principal.scopes, needed)) throw new HttpError(403, "insufficient_scope", `this token lacks the ${needed} scope`);
    if (write) enforceRateLimit(`write:token:${principal.tokenId}`, TOKEN_WRITE_RATE);
    return await handle({ ...runtime, apiUserId: principal.userId }, principal);
  } catch (error) {
    return errorResponse(error);
  }
}

export async function requireApiConversation(runtime: Runtime, conversationId: string): Promise<void> {
  const member = await runtime.services.isMember({ conversationId, userId: runtime.apiUserId });
  if (!member) throw new HttpError(404, "not_found", "conversation was not found");
}
