/**
 * The security headers of every page: a Content-Security-Policy whose scripts are
 * allowed by a per-request nonce (Next reads it from the request's CSP and puts it
 * on its own scripts), no framing, no referrer leaving the site, no MIME sniffing,
 * and HSTS only where the site is really served over https. Pure, so it is
 * unit-tested; proxy.ts applies it.
 */

export interface PolicyInput {
  nonce: string;
  /** development: React needs eval for its debugging aids */
  dev: boolean;
  https: boolean;
}

/** One year, the common preload-ready value. */
export const HSTS_VALUE = "max-age=31536000; includeSubDomains";

export function contentSecurityPolicy({ nonce, dev, https }: PolicyInput): string {
  const directives = [
    "default-src 'self'",
    // 'strict-dynamic': chunks Next's nonced scripts load are trusted, nothing else
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // React Flow, Recharts and React itself write style attributes; a nonce here would
    // switch 'unsafe-inline' off, and styles cannot run code
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    // Socket.IO: websocket and polling to this same origin
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}

/**
 * On every response, pages, files and JSON alike: next.config.ts adds them to Next's,
 * the automation API (api-v1/serve-v1.ts) to its own.
 */
export const BASELINE_HEADERS = {
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
} as const;

export function securityHeaders(input: PolicyInput): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(input),
    ...BASELINE_HEADERS,
    ...(input.https ? { "Strict-Transport-Security": HSTS_VALUE } : {}),
  };
}

/**
 * Whether the site is served over https: its public URL says so, or (only when the
 * operator trusts the proxy in front) the proxy's X-Forwarded-Proto does. A client
 * cannot switch HSTS on by sending the header itself.
 */
export function servedOverHttps(input: { publicUrl: string | undefined; trustProxy: boolean; forwardedProto: string | null }): boolean {
  if (input.publicUrl?.toLowerCase().startsWith("https://")) return true;
  if (!input.trustProxy || !input.forwardedProto) return false;
  // a chain of proxies appends: the first value is what the client used
  return input.forwardedProto.split(",")[0].trim().toLowerCase() === "https";
}

/** 128 random bits, base64: unguessable per response. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64");
}
