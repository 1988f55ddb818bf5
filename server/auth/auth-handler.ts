/**
 * What stands in front of better-auth's handler (app/api/auth/[...all]):
 *
 * - Sign-in is limited per address (every attempt counts) and per account (failed
 *   attempts count; a success clears them), GitLab-style. The account key is the
 *   email as typed, so a locked-out address answers the same whether or not an
 *   account exists.
 * - Text better-auth would store (a name, an avatar URL) is checked as Baton's own routes
 *   check theirs: NUL or an unpaired surrogate is a 400 naming the field (not a 500, nor a
 *   silent U+FFFD), and a name is bounded as the sign-up form bounds it and holds no
 *   bidirectional override (it is shown inside sentences).
 * - Cookies set over https (as the custom server saw it, through a trusted proxy's
 *   X-Forwarded-Proto when BATON_TRUST_PROXY is set) carry `Secure`.
 */
import { addressLimitKey, CLIENT_IP_HEADER, CLIENT_PROTO_HEADER } from "../http/client-address.ts";
import { errorResponse, HttpError } from "../http/errors.ts";
import { isJsonContentType, parseJsonText } from "../http/body.ts";
import { MAX_PERSON_IMAGE_CHARS, MAX_PERSON_NAME_CHARS } from "../protocol/limits.ts";
import { BIDI_CONTROLS_MESSAGE, hasBidiControls } from "../core/text.ts";
import { clearRateLimit, hitRateLimit, peekRateLimit, rateLimited, SIGN_IN_ACCOUNT_RATE, SIGN_IN_ADDRESS_RATE } from "./rate-limit.ts";

const SIGN_IN_PATH = /\/sign-in\/email\/?$/;

async function emailOf(request: Request): Promise<string> {
  try {
    const body = (await request.clone().json()) as { email?: unknown };
    return typeof body?.email === "string" ? body.email.trim().toLowerCase().slice(0, 320) : "";
  } catch {
    return "";
  }
}

/** the bounded fields of the profile a body may set (sign-up, update-user), by name */
const PROFILE_FIELD_LIMITS: Record<string, number> = { name: MAX_PERSON_NAME_CHARS, image: MAX_PERSON_IMAGE_CHARS };

/** Throws a 400 naming the field for a JSON body with text no table can store, or a profile field past its bound. */
async function assertStorableAuthBody(request: Request): Promise<void> {
  if (request.method !== "POST" || !isJsonContentType(request.headers.get("content-type"))) return;
  const text = await request.clone().text();
  if (text.trim() === "") return;
  const body = parseJsonText(text);
  if (body === null || typeof body !== "object" || Array.isArray(body)) return;
  for (const [field, max] of Object.entries(PROFILE_FIELD_LIMITS)) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value !== "string") continue;
    const problem =
      value.trim().length > max
        ? `must be at most ${max} characters`
        : // shown inside sentences ("Ada is typing…"): an override would reorder the rest of them
          hasBidiControls(value)
          ? BIDI_CONTROLS_MESSAGE
          : null;
    if (problem) throw new HttpError(400, "invalid_input", `${field}: ${problem}`, undefined, [{ path: field, message: problem }]);
  }
}

export async function handleAuthRequest(request: Request, handler: (request: Request) => Promise<Response>): Promise<Response> {
  const https = request.headers.get(CLIENT_PROTO_HEADER) === "https";
  try {
    await assertStorableAuthBody(request);
  } catch (error) {
    return errorResponse(error);
  }
  if (request.method !== "POST" || !SIGN_IN_PATH.test(new URL(request.url).pathname)) {
    return withSecureCookies(await handler(request), https);
  }
  const address = request.headers.get(CLIENT_IP_HEADER) || "unknown";
  const accountKey = `sign-in:account:${await emailOf(request)}`;
  try {
    const addressWait = hitRateLimit(`sign-in:address:${addressLimitKey(address)}`, SIGN_IN_ADDRESS_RATE);
    if (addressWait !== null) throw rateLimited(addressWait);
    const accountWait = peekRateLimit(accountKey, SIGN_IN_ACCOUNT_RATE);
    if (accountWait !== null) throw rateLimited(accountWait);
  } catch (error) {
    return errorResponse(error);
  }
  const response = await handler(request);
  if (response.ok) clearRateLimit(accountKey);
  else if (response.status === 401 || response.status === 403) hitRateLimit(accountKey, SIGN_IN_ACCOUNT_RATE);
  return withSecureCookies(response, https);
}

function withSecureCookies(response: Response, https: boolean): Response {
  if (!https) return response;
  const cookies = response.headers.getSetCookie();
  if (cookies.length === 0 || cookies.every((cookie) => /;\s*secure\b/i.test(cookie))) return response;
  const headers = new Headers(response.headers);
  headers.delete("set-cookie");
  for (const cookie of cookies) headers.append("set-cookie", /;\s*secure\b/i.test(cookie) ? cookie : `${cookie}; Secure`);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
