/**
 * Next's proxy (formerly middleware), run before every page: a fresh CSP nonce per
 * request, set on the request so Next puts it on its own scripts (and the root
 * layout on its theme script), and the security headers on the response.
 * Route handlers under /api answer JSON or files and set their own policy
 * (artifacts are sandboxed); next.config.ts adds nosniff and friends everywhere.
 * This is not an authorization layer: that lives where data is read.
 */
import { NextResponse, type NextRequest } from "next/server";
import { loadConfig, type Config } from "./server/config/config.ts";
import { createNonce, securityHeaders, servedOverHttps } from "./server/http/security-headers.ts";

let settings: Config | undefined;

export function proxy(request: NextRequest) {
  settings ??= loadConfig();
  const nonce = createNonce();
  const https = servedOverHttps({
    publicUrl: settings.env.BETTER_AUTH_URL,
    trustProxy: settings.trustProxy > 0,
    forwardedProto: request.headers.get("x-forwarded-proto"),
  });
  const headers = securityHeaders({ nonce, dev: settings.dev, https });
  const forwarded = new Headers(request.headers);
  forwarded.set("x-nonce", nonce);
  forwarded.set("Content-Security-Policy", headers["Content-Security-Policy"]);
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!api/|_next/static|_next/image|favicon.ico).*)" }],
};
