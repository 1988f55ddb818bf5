/**
 * The Socket.IO server as Baton runs it (server/index.ts and the socket tests build it
 * here, so tests exercise the real options; handlers.ts attaches the handlers):
 *
 * - Origin: a browser's handshake (HTTP long-polling and WebSocket alike: engine.io
 *   runs `allowRequest` for both) must come from the site itself or a configured
 *   origin (BETTER_AUTH_URL, BATON_TRUSTED_ORIGINS). A request without an Origin
 *   header is not a cross-site browser request (browsers always send one then) and
 *   still needs the session cookie.
 * - Handshakes are rate-limited per client address.
 */
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol/events.ts";
import { configuredOrigins } from "../auth/auth.ts";
import { hitRateLimit, SOCKET_HANDSHAKE_RATE } from "../auth/rate-limit.ts";
import { clientAddress, clientProtocol } from "../http/client-address.ts";

/**
 * Heartbeat: the server pings every HEARTBEAT_INTERVAL_MS and the browser, which learns
 * both figures in the handshake, gives up on a server that sent no ping for their sum
 * (8 s). A frozen server or a dead network then shows as "reconnecting…" within 10 s,
 * not after Socket.IO's default 45 s.
 */
export const HEARTBEAT_INTERVAL_MS = 4_000;
export const HEARTBEAT_TIMEOUT_MS = 4_000;

export interface SocketServerOptions {
  trustProxy: number;
  /** default: BETTER_AUTH_URL and BATON_TRUSTED_ORIGINS */
  origins?: string[];
}

/** The site's own origin as this request addressed it. */
function ownOrigin(request: IncomingMessage, trustProxy: number): string | null {
  const forwardedHost = trustProxy > 0 ? request.headers["x-forwarded-host"] : undefined;
  const host = (Array.isArray(forwardedHost) ? forwardedHost[0] : forwardedHost)?.split(",")[0]?.trim() || request.headers.host;
  if (!host) return null;
  const protocol = clientProtocol({
    encrypted: Boolean((request.socket as { encrypted?: boolean }).encrypted),
    forwardedProto: request.headers["x-forwarded-proto"],
    trustProxy,
  });
  return `${protocol}://${host}`;
}

export function handshakeVerdict(request: IncomingMessage, options: { trustProxy: number; origins: string[] }): string | null {
  const address = clientAddress({
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: request.headers["x-forwarded-for"],
    trustProxy: options.trustProxy,
  });
  if (hitRateLimit(`socket-handshake:${address}`, SOCKET_HANDSHAKE_RATE) !== null) return "too many connection attempts";
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  if (origin === ownOrigin(request, options.trustProxy) || options.origins.includes(origin)) return null;
  return "origin not allowed";
}

export function createSocketServer(httpServer: HttpServer, options: SocketServerOptions) {
  const origins = options.origins ?? configuredOrigins();
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    // same-origin only: the app and its socket share one host and port
    cors: { origin: false },
    maxHttpBufferSize: 1e6,
    pingInterval: HEARTBEAT_INTERVAL_MS,
    pingTimeout: HEARTBEAT_TIMEOUT_MS,
    allowRequest: (request, callback) => {
      const refusal = handshakeVerdict(request, { trustProxy: options.trustProxy, origins });
      callback(refusal, refusal === null);
    },
  });
  return io;
}
