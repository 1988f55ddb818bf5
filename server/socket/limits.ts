/**
 * What one client may cost the Socket.IO server, so that one abusive socket cannot slow
 * everybody else's live updates (DESIGN rule 9):
 *
 * - Handshakes: a ceiling per client address (high: an office of hundreds behind one
 *   NAT reconnects at once after a restart), a limit per signed-in user, and a lower
 *   one per address for handshakes without a valid session.
 * - Open sockets: a bound per signed-in user (per process), since the event budget is
 *   per socket: otherwise a person adds a socket, and its budget, with every handshake.
 * - Events: each socket has a budget of events per second and a size limit per event;
 *   an event past either is refused (its ack answers `rate_limited` or `too_large`)
 *   before any handler or database sees it. A socket that keeps going past them is told
 *   why (`socket-closing`) and closed.
 * - Messages: the transport refuses a single message larger than MAX_SOCKET_MESSAGE_BYTES.
 */
import type { IncomingMessage } from "node:http";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Socket } from "socket.io";
import { hitRateLimit, type RateRule } from "../auth/rate-limit.ts";
import { addressLimitKey, CLIENT_IP_HEADER } from "../http/client-address.ts";
import type { HandshakeRefusal, SocketClosingReason } from "../protocol/events.ts";

export interface SocketLimits {
  /** handshakes per minute of one signed-in user, all their tabs and devices together */
  handshakesPerUser: number;
  /** every handshake per minute from one client address (signed in or not) */
  handshakesPerAddress: number;
  /** handshakes per minute from one client address that carry no valid session */
  anonymousHandshakesPerAddress: number;
  /** events one socket may send per second */
  eventsPerSecond: number;
  /** the largest event, its arguments serialized as JSON */
  maxEventBytes: number;
  /** refused events after which the socket is closed */
  maxRefusedEvents: number;
  /** sockets one signed-in user may hold open in this process (tabs and devices together) */
  openSocketsPerUser: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  handshakesPerUser: 20,
  handshakesPerAddress: 2_000,
  anonymousHandshakesPerAddress: 60,
  eventsPerSecond: 20,
  maxEventBytes: 4_096,
  maxRefusedEvents: 50,
  openSocketsPerUser: 40,
};

/** The transport's own ceiling for one message (engine.io's maxHttpBufferSize). */
export const MAX_SOCKET_MESSAGE_BYTES = 64 * 1024;

export const TOO_MANY_HANDSHAKES = "too many connection attempts";

/** The middleware's refusal: the message for people, `data` for the browser's retry (protocol/events.ts). */
export function tooManyHandshakes(retryAfterSeconds: number): Error & { data: HandshakeRefusal } {
  return Object.assign(new Error(TOO_MANY_HANDSHAKES), { data: { code: "too_many_handshakes" as const, retryAfterSeconds } });
}

const perMinute = (max: number): RateRule => ({ windowMs: 60_000, max });

/** BATON_SOCKET_* settings (config.ts validates them), the defaults for any left unset. */
export function socketLimitsFromEnv(env: {
  BATON_SOCKET_HANDSHAKES_PER_USER?: number;
  BATON_SOCKET_HANDSHAKES_PER_ADDRESS?: number;
  BATON_SOCKET_ANONYMOUS_HANDSHAKES_PER_ADDRESS?: number;
  BATON_SOCKET_EVENTS_PER_SECOND?: number;
}): SocketLimits {
  return {
    ...DEFAULT_SOCKET_LIMITS,
    handshakesPerUser: env.BATON_SOCKET_HANDSHAKES_PER_USER ?? DEFAULT_SOCKET_LIMITS.handshakesPerUser,
    handshakesPerAddress: env.BATON_SOCKET_HANDSHAKES_PER_ADDRESS ?? DEFAULT_SOCKET_LIMITS.handshakesPerAddress,
    anonymousHandshakesPerAddress: env.BATON_SOCKET_ANONYMOUS_HANDSHAKES_PER_ADDRESS ?? DEFAULT_SOCKET_LIMITS.anonymousHandshakesPerAddress,
    eventsPerSecond: env.BATON_SOCKET_EVENTS_PER_SECOND ?? DEFAULT_SOCKET_LIMITS.eventsPerSecond,
  };
}

/** Counts a handshake from an address (engine.io's allowRequest, before anything else); false past the ceiling. */
export function admitAddressHandshake(address: string, limits: SocketLimits): boolean {
  return hitRateLimit(`socket-handshake:${addressLimitKey(address)}`, perMinute(limits.handshakesPerAddress)) === null;
}

/** The client address the server stamped on the handshake request (see server.ts's allowRequest). */
export function handshakeAddress(request: IncomingMessage): string {
  const stamped = request.headers[CLIENT_IP_HEADER];
  return (Array.isArray(stamped) ? stamped[0] : stamped) ?? request.socket.remoteAddress ?? "";
}

/** Counts a handshake that brought no valid session; past the address's limit, the seconds to wait, else null. */
export function anonymousHandshakeWait(address: string, limits: SocketLimits): number | null {
  return hitRateLimit(`socket-anonymous:${addressLimitKey(address)}`, perMinute(limits.anonymousHandshakesPerAddress));
}

/** Counts a signed-in user's handshake; past the user's limit, the seconds to wait, else null. */
export function userHandshakeWait(userId: string, limits: SocketLimits): number | null {
  return hitRateLimit(`socket-user:${userId}`, perMinute(limits.handshakesPerUser));
}

/** seconds a person past their open sockets is told to wait before trying again */
const OPEN_SOCKETS_RETRY_SECONDS = 30;

/**
 * Counts each user's open sockets in this process. `admit` reserves one (or answers the
 * seconds to wait when the user holds the most already); `release` gives it back on
 * disconnect, or when the handshake did not go through after all.
 */
export function createOpenSocketCounter(limits: SocketLimits) {
  const openByUser = new Map<string, number>();
  return {
    admit(userId: string): number | null {
      const open = openByUser.get(userId) ?? 0;
      if (open >= limits.openSocketsPerUser) return OPEN_SOCKETS_RETRY_SECONDS;
      openByUser.set(userId, open + 1);
      return null;
    },
    release(userId: string): void {
      const open = (openByUser.get(userId) ?? 0) - 1;
      if (open > 0) openByUser.set(userId, open);
      else openByUser.delete(userId);
    },
  };
}

/** Why an event was refused, as its ack tells the client. */
type Refusal = "rate_limited" | "too_large";

/** JSON size of an event's arguments (the ack callback excluded); bounded by the transport's message limit. */
function eventBytes(args: unknown[]): number {
  try {
    return JSON.stringify(args.filter((arg) => typeof arg !== "function")).length;
  } catch {
    return Number.POSITIVE_INFINITY; // not serializable as JSON: no Baton event looks like that
  }
}

/**
 * Installs the per-socket event budget: one in-memory limiter for the whole server,
 * keyed by socket id (its keys expire with their window), and a count of refusals per
 * socket. Returns the function that guards one socket.
 */
export function createEventGuard(limits: SocketLimits): (socket: Socket) => void {
  const limiter = new RateLimiterMemory({ points: limits.eventsPerSecond, duration: 1 });
  return (socket) => {
    let refused = 0;
    let closing = false;
    const refuse = (args: unknown[], reason: Refusal) => {
      const ack = args.at(-1);
      // every Baton event with an ack answers { ok, error } (protocol/events.ts's JoinAck)
      if (typeof ack === "function") (ack as (answer: { ok: false; error: Refusal }) => void)({ ok: false, error: reason });
      refused += 1;
      if (refused >= limits.maxRefusedEvents && !closing) {
        closing = true;
        const notice: SocketClosingReason = reason === "too_large" ? "payload_too_large" : "too_many_events";
        socket.emit("socket-closing", { reason: notice });
        socket.disconnect(true);
      }
    };
    socket.use((packet, next) => {
      if (closing) return;
      const args = packet.slice(1);
      if (eventBytes(args) > limits.maxEventBytes) return refuse(args, "too_large");
      limiter.consume(socket.id).then(
        () => next(),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) refuse(args, "rate_limited");
          else next(rejection instanceof Error ? rejection : new Error("event limiter failed"));
        },
      );
    });
    socket.on("disconnect", () => void limiter.delete(socket.id));
  };
}
