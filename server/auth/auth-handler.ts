/**
 * What stands in front of better-auth's handler (app/api/auth/[...all]):
 *
 * - Sign-in is limited per address (every attempt counts) and per account (failed
 *   attempts count; a success clears them), GitLab-style. The account key is the
 *   email as typed, so a locked-out address answers the same whether or not an
 *   account exists.
 * - Cookies set over https (as the custom server saw it, through a trusted proxy's
 *   X-Forwarded-Proto when BATON_TRUST_PROXY is set) carry `Secure`.
 */
import { CLIENT_IP_HEADER, CLIENT_PROTO_HEADER } from "../http/client-address.ts";
import { errorResponse } from "../http/errors.ts";
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

export async function handleAuthRequest(request: Request, handler: (request: Request) => Promise<Response>): Promise<Response> {
  const https = request.headers.get(CLIENT_PROTO_HEADER) === "https";
  if (request.method !== "POST" || !SIGN_IN_PATH.test(new URL(request.url).pathname)) {
    return withSecureCookies(await handler(request), https);
  }
  const address = request.headers.get(CLIENT_IP_HEADER) || "unknown";
  const accountKey = `sign-in:account:${await emailOf(request)}`;
  try {
    const addressWait = hitRateLimit(`sign-in:address:${address}`, SIGN_IN_ADDRESS_RATE);
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
