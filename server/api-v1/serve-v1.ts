/**
 * The automation API (/api/v1), answered by the custom server itself rather than by
 * Next's route handlers.
 *
 * Why: measured through the real server, a request costs 6–8 ms of CPU in Next's
 * routing (its route resolution, its wrapping of request and response in web streams,
 * its AsyncLocalStorages) even when it answers 404 at once, against about 0.5 ms for
 * /healthz; a plan submitted through the API waited that long before the executor saw
 * it (docs/decisions/2026-12-01-server-latency.md, twelfth round). The API needs none
 * of what Next adds for pages; its handlers (handlers.ts) are web-standard functions,
 * so here they get a Request and their Response is written back, with what Next added
 * on the way: the baseline security headers and gzip for larger answers. Unlike Next,
 * an unknown path answers JSON 404, and a known path with another method 405 naming
 * the allowed ones.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import compression from "compression";
import type { RouteSpec } from "../protocol/rest/define.ts";
import { v1Routes } from "../protocol/rest/v1.ts";
import { bodyLimitFor, bodyTooLarge } from "../http/body.ts";
import { errorResponse, HttpError } from "../http/errors.ts";
import { BASELINE_HEADERS } from "../http/security-headers.ts";
import { v1Handlers } from "./handlers.ts";

export const V1_PREFIX = "/api/v1";

/** a route's path split at "/": a literal segment, or the name of a parameter */
type Segment = { literal: string } | { param: string };

/** a handler as the table calls it: matchPath hands it exactly its route's parameters */
type MatchedHandler = (request: Request, params: Record<string, string>) => Promise<Response>;

const table = (Object.keys(v1Routes) as (keyof typeof v1Routes)[]).map((name) => {
  const spec: RouteSpec = v1Routes[name];
  const segments: Segment[] = spec.path.split("/").map((part) => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part }));
  return { spec, segments, handler: v1Handlers[name] as MatchedHandler };
});

/** The path's parameters if it has the route's shape (each decoded), else null; a bad %-escape is a 400. */
function matchPath(segments: Segment[], parts: string[]): Record<string, string> | null {
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    const part = parts[i];
    if ("literal" in segment) {
      if (part !== segment.literal) return null;
    } else {
      if (part === "") return null;
      try {
        params[segment.param] = decodeURIComponent(part);
      } catch {
        throw new HttpError(400, "invalid_input", `${segment.param}: the path segment is not valid %-encoding`);
      }
    }
  }
  return params;
}

/**
 * Answers a request to /api/v1: the route's handler (HEAD runs GET's and drops the
 * body), 204 with Allow for OPTIONS, 405 with Allow for another method, 404 for a path
 * no route has. Every answer carries the baseline security headers and, unless the
 * handler set one, `Cache-Control: no-store` (answers are per token).
 */
export async function dispatchV1(request: Request): Promise<Response> {
  const response = await route(request).catch(errorResponse);
  for (const [name, value] of Object.entries(BASELINE_HEADERS)) response.headers.set(name, value);
  if (!response.headers.has("cache-control")) response.headers.set("Cache-Control", "no-store");
  return response;
}

async function route(request: Request): Promise<Response> {
  const url = new URL(request.url);
  // "/api/v1/agents/" is "/api/v1/agents", as Next's redirect made it
  const parts = url.pathname.replace(/(.)\/$/, "$1").split("/");
  const method = request.method.toUpperCase();
  const allowed: string[] = [];
  for (const { spec, segments, handler } of table) {
    const params = matchPath(segments, parts);
    if (params === null) continue;
    if (spec.method === method) return handler(request, params);
    if (spec.method === "GET" && method === "HEAD") {
      const answer = await handler(new Request(request, { method: "GET" }), params);
      return new Response(null, { status: answer.status, headers: answer.headers });
    }
    allowed.push(spec.method);
  }
  if (allowed.length === 0) throw new HttpError(404, "not_found", `no such endpoint: ${url.pathname}`);
  if (allowed.includes("GET")) allowed.push("HEAD");
  const allow = [...allowed, "OPTIONS"].join(", ");
  if (method === "OPTIONS") return new Response(null, { status: 204, headers: { Allow: allow } });
  throw new HttpError(405, "method_not_allowed", `${url.pathname} answers ${allow}, not ${method}`, { Allow: allow });
}

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request's body, refused with 413 naming the path's cap as soon as more than the
 * cap has arrived (the rest is never read). A declared length past the cap was refused
 * before this (body-gate.ts); this counts chunked bodies.
 */
function readBodyWithin(request: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (BODYLESS.has(request.method ?? "GET")) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      request.off("data", take).off("end", done).off("error", reject);
      request.pause();
    };
    const take = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) {
        stop();
        reject(bodyTooLarge(limit));
      } else chunks.push(chunk);
    };
    const done = () => {
      stop();
      const bytes = new Uint8Array(total);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(bytes);
    };
    request.on("data", take).on("end", done).on("error", reject);
  });
}

/** as Next compresses its answers: gzip (or deflate, br) for answers of 1 kB and more the client accepts */
const compress = compression();

/**
 * The Node side: a request under /api/v1 is answered here (returns true); any other
 * is left to the caller. Requests come here after the body gate and the client-address
 * stamp (serve.ts), as they reached Next before.
 */
export function createV1Server(input: { maxBodyBytes: number }): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const path = request.url ?? "/";
    if (path !== V1_PREFIX && !path.startsWith(`${V1_PREFIX}/`) && !path.startsWith(`${V1_PREFIX}?`)) return false;
    compress(request as never, response as never, () => void answer(request, response, input.maxBodyBytes));
    return true;
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): Promise<void> {
  const method = request.method ?? "GET";
  let answered: Response;
  try {
    // the origin is fixed: handlers read only the path and query, and a Host header is the client's to forge
    const url = new URL(request.url ?? "/", "http://localhost");
    const body = await readBodyWithin(request, bodyLimitFor(url.pathname, maxBodyBytes));
    const headers = new Headers();
    for (let i = 0; i < request.rawHeaders.length; i += 2) headers.append(request.rawHeaders[i], request.rawHeaders[i + 1]);
    answered = await dispatchV1(new Request(url, { method, headers, body }));
  } catch (error) {
    // the client went away while its body was read: nobody to answer
    if (response.destroyed || !response.socket || response.socket.destroyed) return;
    // a body past the cap, or what no Request can carry (a TRACE, say)
    answered = errorResponse(
      error instanceof HttpError
        ? error
        : new HttpError(400, "invalid_input", `the request could not be read: ${(error as Error).message}`),
    );
    for (const [name, value] of Object.entries(BASELINE_HEADERS)) answered.headers.set(name, value);
    // the rest of a refused body is never read: the connection ends with the answer
    answered.headers.set("Connection", "close");
  }
  const bytes = method === "HEAD" || answered.body === null ? null : Buffer.from(await answered.arrayBuffer());
  response.statusCode = answered.status;
  for (const [name, value] of answered.headers) if (name !== "set-cookie") response.setHeader(name, value);
  const cookies = answered.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);
  response.end(bytes ?? undefined);
}
