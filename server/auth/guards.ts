/**
 * Route-handler guards: session, membership, admin, same origin, rate limits. A non-member gets the same 404 as a missing
 * conversation, so membership checks never reveal that a conversation exists.
 */
import { errorResponse, HttpError } from "../http/errors.ts";
import { boundBody } from "../http/body.ts";
import { assertIdParams } from "../http/params.ts";
import { getSessionUser, type SessionUser } from "./session.ts";
import { getRuntime } from "../runtime.ts";
import { enforceRateLimit, USER_WRITE_RATE, type RateRule } from "./rate-limit.ts";
import { configuredOrigins } from "./auth.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Defence in depth against cross-site requests (session cookies are SameSite=Lax
 * already): a state-changing request a browser marks as coming from another site, or
 * whose Origin is neither this host nor a trusted origin, is refused.
 */
export function assertSameOrigin(request: Request, trusted: string[] = configuredOrigins()): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  if (request.headers.get("sec-fetch-site") === "cross-site") {
    throw new HttpError(403, "forbidden", "Cross-site requests are not accepted.");
  }
  const origin = request.headers.get("origin");
  if (!origin) return; // not a browser form or fetch: no ambient-credential risk to guard
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new HttpError(403, "forbidden", "Malformed Origin header.");
  }
  const forwarded = request.headers.get("x-forwarded-host");
  if (host === request.headers.get("host") || (forwarded && host === forwarded) || trusted.includes(origin)) return;
  throw new HttpError(403, "forbidden", "Cross-site requests are not accepted.");
}

export async function requireUser(request: Request): Promise<SessionUser> {
  assertSameOrigin(request);
  const user = await getSessionUser(request.headers);
  if (!user) throw new HttpError(401, "unauthenticated", "Sign in first.");
  // one budget for every write of a person, whatever the route
  if (!SAFE_METHODS.has(request.method.toUpperCase())) enforceRateLimit(`write:user:${user.id}`, USER_WRITE_RATE);
  return user;
}

export async function requireAdmin(request: Request): Promise<SessionUser> {
  const user = await requireUser(request);
  if (user.role !== "admin") throw new HttpError(403, "forbidden", "Admins only.");
  return user;
}

export async function requireMember(request: Request, conversationId: string): Promise<SessionUser> {
  const user = await requireUser(request);
  const member = await getRuntime().app.conversations.isMember({ conversationId, userId: user.id });
  if (!member) throw new HttpError(404, "not_found", "No such conversation.");
  return user;
}

export function enforceRate(key: string, rule: RateRule) {
  enforceRateLimit(key, rule);
}

/**
 * Wraps a handler so thrown HttpErrors and coded service errors become JSON responses.
 * The body cap applies first, before the handler authenticates anyone; path ids no
 * database could hold are "not found" before any lookup.
 */
export function handle<A extends unknown[]>(fn: (request: Request, ...rest: A) => Promise<Response>) {
  return async (request: Request, ...rest: A): Promise<Response> => {
    try {
      const bounded = await boundBody(request);
      const params = (rest[0] as { params?: Promise<Record<string, unknown>> } | undefined)?.params;
      if (params !== undefined) assertIdParams(await params);
      return await fn(bounded, ...rest);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Forms and plans are addressed by id; make sure the id belongs to the conversation in the URL. */
export async function requireFormIn(conversationId: string, formId: string) {
  if (!(await getRuntime().app.conversations.holdsForm({ conversationId, formId }))) {
    throw new HttpError(404, "not_found", "No such form.");
  }
}

export async function requirePlanIn(conversationId: string, planId: string) {
  if (!(await getRuntime().app.conversations.holdsPlan({ conversationId, planId }))) {
    throw new HttpError(404, "not_found", "No such plan.");
  }
}

export { HttpError } from "../http/errors.ts";
/** prefer readBody(routes.<group>.<name>, request) (http/route-spec.ts): the body schema then lives in protocol/rest/ */
