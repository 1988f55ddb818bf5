/**
 * Requests no handler can make sense of are answered 400 at the door of the custom
 * server, naming what is wrong, instead of a 500 from deep inside Next or a route: a
 * path whose %-encoding is broken, a NUL in a query parameter (PostgreSQL cannot store
 * or compare it), a `Next-Router-State-Tree` header that is not the router state Next
 * expects (encoded JSON of `[segment, { parallel routes }, …]`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** the router state's nesting, far past any real app's, before it is refused */
const MAX_ROUTER_STATE_DEPTH = 64;
/** Next refuses a longer header itself (with a 500): about 2,000 nested segments */
const MAX_ROUTER_STATE_CHARS = 40_000;
const ROUTER_STATE_HEADER = "next-router-state-tree";

/** What is wrong with the request's target or headers, or null when nothing is. */
export function malformedRequestReason(input: { url: string; routerStateTree?: string | string[] }): string | null {
  const queryAt = input.url.indexOf("?");
  const rawPath = queryAt === -1 ? input.url : input.url.slice(0, queryAt);
  try {
    decodeURIComponent(rawPath);
  } catch {
    return "path: malformed %-encoding";
  }
  if (queryAt !== -1) {
    const query = input.url.slice(queryAt + 1);
    for (const part of query.split("&")) {
      try {
        if (decodeURIComponent(part.replace(/\+/g, " ")).includes("\u0000")) return "query: a parameter contains a NUL character";
      } catch {
        return "query: malformed %-encoding";
      }
    }
  }
  const state = input.routerStateTree;
  if (state !== undefined) {
    if (Array.isArray(state)) return "Next-Router-State-Tree: sent more than once";
    if (state.length > MAX_ROUTER_STATE_CHARS) return `Next-Router-State-Tree: longer than ${MAX_ROUTER_STATE_CHARS} characters`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(decodeURIComponent(state));
    } catch {
      return "Next-Router-State-Tree: not %-encoded JSON";
    }
    if (!isRouterState(parsed, 0)) return "Next-Router-State-Tree: not a router state ([segment, { parallel routes }, …])";
  }
  return null;
}

function isRouterState(value: unknown, depth: number): boolean {
  if (depth > MAX_ROUTER_STATE_DEPTH || !Array.isArray(value) || value.length < 2) return false;
  if (value.length > 6) return false;
  const [segment, parallelRoutes] = value as unknown[];
  // a static segment, or a dynamic one: [param name, cache key, type, static siblings?] (next's app-render/types)
  const segmentOk =
    typeof segment === "string" ||
    (Array.isArray(segment) &&
      segment.length >= 3 &&
      segment.length <= 4 &&
      typeof segment[0] === "string" &&
      typeof segment[1] === "string");
  if (!segmentOk || typeof parallelRoutes !== "object" || parallelRoutes === null || Array.isArray(parallelRoutes)) return false;
  return Object.values(parallelRoutes).every((child) => isRouterState(child, depth + 1));
}

/** Answers 400 with the reason and returns true when the request is malformed; otherwise does nothing. */
export function refuseMalformedRequest(request: IncomingMessage, response: ServerResponse): boolean {
  const reason = malformedRequestReason({ url: request.url ?? "/", routerStateTree: request.headers[ROUTER_STATE_HEADER] });
  if (reason === null) return false;
  response.writeHead(400, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { code: "invalid_input", message: reason } }));
  return true;
}
