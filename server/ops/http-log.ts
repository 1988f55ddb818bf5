/**
 * One JSON line per HTTP request (pino-http), with its request id, status and time, in
 * the same stream as everything else. Probes and metrics scrapes are not logged: they
 * come every few seconds and say nothing an operator needs line by line.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pinoHttp } from "pino-http";
import { log } from "../observability/log.ts";
import { REQUEST_ID_HEADER, requestIdFrom, withRequestId } from "../observability/request-id.ts";

const QUIET_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** query parameters whose value is a credential: an invite link's token, a reset or OAuth code, an API key… */
const SECRET_QUERY_NAME = /token|invite|secret|passw|key|code|signature|credential|session|auth/i;
/** path segments after these carry a token (Better Auth's reset link) */
const SECRET_PATH = /^(\/api\/auth\/reset-password\/)[^/?#]+/;
const REDACTED = "[redacted]";

function decodedOrRaw(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/** The URL as it is logged: raw (a malformed one too), with the value of every secret-looking parameter masked. */
function loggableUrl(url: string): string {
  const queryAt = url.indexOf("?");
  const pathPart = (queryAt === -1 ? url : url.slice(0, queryAt)).replace(SECRET_PATH, `$1${REDACTED}`);
  if (queryAt === -1) return pathPart;
  const query = url
    .slice(queryAt + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      if (equals === -1) return pair;
      const name = pair.slice(0, equals);
      return SECRET_QUERY_NAME.test(decodedOrRaw(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join("&");
  return `${pathPart}?${query}`;
}

/** What a request's log line says of it: method and URL; headers (cookies, tokens) stay out. */
export function requestLogFields(request: { method?: string; url?: string }): { method?: string; url?: string } {
  return { method: request.method, url: request.url === undefined ? undefined : loggableUrl(request.url) };
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** `handler` with a request id (incoming or new, echoed in `X-Request-Id`) and a log line per request. */
export function withRequestLog(handler: Handler): Handler {
  const httpLog = pinoHttp({
    logger: log,
    genReqId: (request, response) => {
      const id = requestIdFrom(request.headers[REQUEST_ID_HEADER]);
      response.setHeader("X-Request-Id", id);
      return id;
    },
    customAttributeKeys: { reqId: "requestId" },
    // a 5xx the handler answered (an outage's 503) carries no error of its own: pino-http
    // makes one up, whose stack is pino-http's; the status already says it
    customErrorObject: (_request, response, error, object: Record<string, unknown>) => {
      if ((response as { err?: unknown }).err !== undefined || error.message !== `failed with status code ${response.statusCode}`)
        return object;
      const { err: _err, ...rest } = object;
      return rest;
    },
    autoLogging: { ignore: (request) => QUIET_PATHS.has(request.url ?? "") },
    // the id and the outcome; headers (cookies, tokens) and secrets in the URL stay out of the log
    serializers: {
      req: requestLogFields,
      res: (response: { statusCode?: number }) => ({ statusCode: response.statusCode }),
    },
  });
  return (request, response) => {
    httpLog(request, response);
    // genReqId above made it a string
    withRequestId(request.id as string, () => handler(request, response));
  };
}
