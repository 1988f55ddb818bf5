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
 * - With several processes (PostgreSQL), rooms span all of them through Socket.IO's
 *   PostgreSQL adapter (attachClusterAdapter) — for what rooms.ts does across processes
 *   (joins, leaves, membership notices). Conversation events travel on Baton's own bus
 *   (adapters/socket/event-bus.ts), which replays from the event log after a drop.
 */
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import { createAdapter } from "@socket.io/postgres-adapter";
import type pg from "pg";
import { poolBeside } from "../db/database.ts";
import { endPool } from "../db/pg-guard.ts";
import { log } from "../observability/log.ts";
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
    pingInterval: HEARTBEAT_INTERVAL_MS,
    pingTimeout: HEARTBEAT_TIMEOUT_MS,
    allowRequest: (request, callback) => {
      const refusal = handshakeVerdict(request, { trustProxy: options.trustProxy, origins, limits });
      callback(refusal, refusal === null);
    },
  });
  return io;
}

/** the PostgreSQL adapter's channel prefix (its default) */
const CLUSTER_CHANNEL_PREFIX = "socket.io";
/** how long a shutdown waits for the adapter's clients (it may hold one it lost track of) */
const ADAPTER_POOL_END_MS = 2_000;

/**
 * Attaches Socket.IO's PostgreSQL adapter on a small pool of its own. The adapter keeps
 * one client of the pool checked out for its LISTEN and attaches no `error` listener to
 * it: the pool here handles every client's errors and hands a dropped checked-out
 * client back broken (db/pg-guard.ts), and the adapter, hearing it end, checks out a new
 * one and LISTENs again (after about 1-3 s). Resolves to the pool's end, for shutdown.
 */
export function attachClusterAdapter(io: Server, pool: pg.Pool): () => Promise<void> {
  const adapterPool = poolBeside(pool, { name: "socket_io", max: 3, releaseBrokenClients: true });
  io.adapter(
    createAdapter(adapterPool, {
      channelPrefix: CLUSTER_CHANNEL_PREFIX,
      errorHandler: (error) => log.warn({ err: error }, "Socket.IO's PostgreSQL adapter failed to send or receive"),
    }),
  );
  return async () => void (await endPool(adapterPool, { name: "socket_io", timeoutMs: ADAPTER_POOL_END_MS }));
}
