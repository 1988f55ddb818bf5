/**
 * The Socket.IO server as Baton runs it (server/index.ts and the socket tests build it
 * here, so tests exercise the real options; handlers.ts attaches the handlers):
 *
 * - Origin: a browser's handshake (HTTP long-polling and WebSocket alike: engine.io
 *   runs `allowRequest` for both) must come from the site itself or a configured
 *   origin (BETTER_AUTH_URL, BATON_TRUSTED_ORIGINS). A request without an Origin
 *   header is not a cross-site browser request (browsers always send one then) and
 *   still needs the session cookie.
 * - Handshakes are counted per client address against a high ceiling (limits.ts); the
 *   address is stamped on the request here, where the per-user and anonymous limits
 *   of handlers.ts's middleware read it.
 */
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol/events.ts";
import { configuredOrigins } from "../auth/auth.ts";
import { clientProtocol, stampClientHeaders } from "../http/client-address.ts";
import {
  admitAddressHandshake,
  DEFAULT_SOCKET_LIMITS,
  MAX_SOCKET_MESSAGE_BYTES,
  TOO_MANY_HANDSHAKES,
  type SocketLimits,
} from "./limits.ts";

export interface SocketServerOptions {
  trustProxy: number;
  /** default: BETTER_AUTH_URL and BATON_TRUSTED_ORIGINS */
  origins?: string[];
  /** default: DEFAULT_SOCKET_LIMITS (only the per-address ceiling is used here) */
  limits?: SocketLimits;
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

export function handshakeVerdict(
  request: IncomingMessage,
  options: { trustProxy: number; origins: string[]; limits: SocketLimits },
): string | null {
  const { address } = stampClientHeaders(request, options.trustProxy);
  if (!admitAddressHandshake(address, options.limits)) return TOO_MANY_HANDSHAKES;
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  if (origin === ownOrigin(request, options.trustProxy) || options.origins.includes(origin)) return null;
  return "origin not allowed";
}

export function createSocketServer(httpServer: HttpServer, options: SocketServerOptions) {
  const origins = options.origins ?? configuredOrigins();
  const limits = options.limits ?? DEFAULT_SOCKET_LIMITS;
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    // same-origin only: the app and its socket share one host and port
    cors: { origin: false },
    maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
    allowRequest: (request, callback) => {
      const refusal = handshakeVerdict(request, { trustProxy: options.trustProxy, origins, limits });
      callback(refusal, refusal === null);
    },
  });
  return io;
}
