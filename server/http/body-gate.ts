/**
 * The body cap at the door of the custom server: a request whose Content-Length is
 * past its path's cap is answered 413 before Next (or anyone's authentication) sees
 * it, and its body is never read. Bodies without a length (chunked) are counted as
 * they stream by the route handlers (body.ts), and by Next for server actions.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bodyLimitFor, bodyTooLarge } from "./body.ts";

/** Answers 413 and returns true when the declared body is too large; otherwise does nothing. */
export function refuseOversizedBody(request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): boolean {
  const declared = request.headers["content-length"];
  if (declared === undefined) return false;
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  const limit = bodyLimitFor(pathname, maxBodyBytes);
  if (!(Number(declared) > limit)) return false;
  const error = bodyTooLarge(limit);
  // "close": the unread body is dropped with the connection instead of being drained
  response.writeHead(413, { "content-type": "application/json", connection: "close" });
  response.end(JSON.stringify({ error: { code: error.code, message: error.message } }));
  return true;
}
