/**
 * Shared plumbing of the automation API (/api/v1): bearer-token and signed-webhook
 * authentication (the bootstrap BATON_API_TOKEN or personal access tokens, see
 * auth/api-tokens.ts); errors and body parsing come from errors.ts and body.ts like
 * every route's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { getRuntime, type Runtime } from "../runtime.ts";
import { assertDeclaredLength, boundBody, readLimitedText, requestBodyLimit } from "../http/body.ts";
import { errorResponse, HttpError } from "../http/errors.ts";
import { assertIdParams, plausibleId } from "../http/params.ts";
import type { Actor } from "../access/actor.ts";
import { scopeAllows, TOKEN_PREFIX, verifyApiToken } from "../services/api-tokens.ts";
import type { TokenScope } from "../protocol/rest/account.ts";
import { enforceRateLimit, PERSON_TOKENS_WRITE_RATE, TOKEN_WRITE_RATE } from "../auth/rate-limit.ts";

/** how far a delivery's timestamp may be from the server's clock, either way */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
/** what a delivery id may look like: no ":" (the signed string's separator), at most 128 characters */
const DELIVERY_ID = /^[A-Za-z0-9._-]{1,128}$/;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** A verified delivery: its id must not have been seen before `expiresAt` (the caller records it). */
export interface WebhookDelivery {
  id: string;
  expiresAt: Date;
}

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The string a sender signs: version, timestamp, delivery id, the request's path and the raw body. */
export function webhookSigningString(input: { timestamp: string; delivery: string; path: string; body: string }): string {
  return `v1:${input.timestamp}:${input.delivery}:${input.path}:${input.body}`;
}

const unauthorized = (message: string) => new HttpError(401, "unauthorized", message);

/**
 * Checks the delivery headers before the body is read: a fresh timestamp (±5 minutes),
 * a delivery id, a well-formed signature. Then the body, read within the cap, must
 * match the signature over timestamp, delivery, path and body (constant-time).
 */
async function verifySignedDelivery(request: Request, secret: string, nowMs: number): Promise<{ body: string; delivery: WebhookDelivery }> {
  const timestamp = request.headers.get("x-baton-timestamp") ?? "";
  const delivery = request.headers.get("x-baton-delivery") ?? "";
  const signature = SIGNATURE.exec(request.headers.get("x-baton-signature") ?? "");
  if (!/^\d{1,12}$/.test(timestamp)) throw unauthorized("X-Baton-Timestamp: missing or not a Unix time in seconds");
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) {
    throw unauthorized(`X-Baton-Timestamp: more than ${WEBHOOK_TOLERANCE_SECONDS / 60} minutes from the server's clock`);
  }
  if (!DELIVERY_ID.test(delivery)) throw unauthorized("X-Baton-Delivery: missing, or not 1-128 letters, digits, '.', '_' or '-'");
  if (!signature) throw unauthorized("X-Baton-Signature: must be sha256=<64 hex digits>");
  const body = await readLimitedText(request);
  const path = new URL(request.url).pathname;
  const expected = createHmac("sha256", secret).update(webhookSigningString({ timestamp, delivery, path, body })).digest();
  if (!timingSafeEqual(Buffer.from(signature[1], "hex"), expected)) {
    throw unauthorized("the signature does not match this timestamp, delivery, path and body");
  }
  return { body, delivery: { id: delivery, expiresAt: new Date((Number(timestamp) + WEBHOOK_TOLERANCE_SECONDS) * 1000) } };
}

/**
 * For webhooks: accepts the bearer token, or a signed delivery (X-Baton-Timestamp,
 * X-Baton-Delivery, X-Baton-Signature; see the README's Security section). Returns
 * the raw body, which the caller parses, and for a signed delivery its id, which the
 * caller records in the same transaction as its effect so a replay is refused.
 */
export async function withSignedBody(
  request: Request,
  handle: (runtime: Runtime, body: string, delivery: WebhookDelivery | null) => Promise<Response>,
  options: { params?: Record<string, unknown>; conversation?: string } = {},
): Promise<Response> {
  const { params } = options;
  try {
    const runtime = getRuntime();
    const secret = runtime.config.webhookSecret;
    if (secret && request.headers.has("x-baton-signature")) {
      assertDeclaredLength(request.headers, requestBodyLimit(request));
      const { body, delivery } = await verifySignedDelivery(request, secret, Date.now());
      if (params !== undefined) assertIdParams(params);
      return await handle(runtime, body, delivery);
    }
    return await withApiToken(request, async (authorised) => handle(authorised, await readLimitedText(request), null), options);
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

/**
 * Who the request acts as. For a personal token, the same statement answers whether its
 * user is a member of `conversationId` (the route's conversation), handed on as
 * `apiMembership` so `requireApiConversation` needs no statement of its own.
 */
async function authenticate(
  runtime: Runtime,
  request: Request,
  conversationId: string | null,
): Promise<{ principal: ApiPrincipal; membership?: Runtime["apiMembership"] }> {
  const header = request.headers.get("authorization") ?? "";
  const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  if (given.startsWith(TOKEN_PREFIX)) {
    const verified = await verifyApiToken(runtime, given, { conversationId });
    if (!verified) throw new HttpError(401, "unauthorized", "the token is unknown, revoked or expired");
    const { member, ...personal } = verified;
    const principal: ApiPrincipal = { kind: "personal", ...personal };
    return { principal, membership: conversationId !== null && member !== null ? { conversationId, member } : undefined };
  }
  const expected = runtime.config.apiToken;
  if (!expected) throw new HttpError(503, "api_disabled", "the automation API is off: set BATON_API_TOKEN or use a personal access token");
  if (!given || !tokenMatches(given, expected)) throw new HttpError(401, "unauthorized", "missing or wrong bearer token");
  // the bootstrap token acts as the automation user, which sees only conversations it was added to
  return {
    principal: { kind: "bootstrap", tokenId: "bootstrap", userId: runtime.apiUserId, userRole: "member", scopes: ["read", "write"] },
  };
}

/**
 * Runs a /api/v1 handler: the body cap, then the bearer token and its scope (`read` for
 * GET, `write` otherwise, or the one given), writes counted against the token's rate
 * limit, then path ids no database could hold are "not found"; hands the handler a
 * runtime whose `apiUserId` is the token's user and maps every error to a JSON response.
 * `conversation` names the path parameter that is a conversation's id: the token's
 * statement then also reads the membership the handler checks (requireApiConversation).
 */
export async function withApiToken(
  request: Request,
  handle: (runtime: Runtime, principal: ApiPrincipal) => Promise<Response>,
  options: { scope?: TokenScope; params?: Record<string, unknown>; conversation?: string } = {},
): Promise<Response> {
  try {
    const runtime = getRuntime();
    await boundBody(request); // handlers read the body through readLimitedBytes, which finds it
    const { params } = options;
    const conversationId = options.conversation === undefined ? undefined : params?.[options.conversation];
    const { principal, membership } = await authenticate(runtime, request, plausibleId(conversationId));
    const write = !SAFE_METHODS.has(request.method.toUpperCase());
    const needed = options.scope ?? (write ? "write" : "read");
    if (!scopeAllows(principal.scopes, needed)) throw new HttpError(403, "insufficient_scope", `this token lacks the ${needed} scope`);
    if (write) enforceRateLimit(`write:token:${principal.tokenId}`, TOKEN_WRITE_RATE);
    // and all of a person's tokens together: otherwise each new token (up to 50) is another budget
    if (write && principal.kind === "personal") enforceRateLimit(`write:tokens-of:${principal.userId}`, PERSON_TOKENS_WRITE_RATE);
    if (params !== undefined) assertIdParams(params);
    return await handle({ ...runtime, apiUserId: principal.userId, apiMembership: membership }, principal);
  } catch (error) {
    return errorResponse(error);
  }
}

/** The automation API acts as its seeded user, a plain member of the conversations it is in. */
export function apiActor(runtime: Runtime): Actor {
  return { id: runtime.apiUserId, role: "member" };
}

/** 404 unless the token's user is a member of the conversation (read with the token, or now). */
export async function requireApiConversation(runtime: Runtime, conversationId: string): Promise<void> {
  const member =
    runtime.apiMembership?.conversationId === conversationId
      ? runtime.apiMembership.member
      : await runtime.app.conversations.isMember({ conversationId, userId: runtime.apiUserId });
  if (!member) throw new HttpError(404, "not_found", "conversation was not found");
}
