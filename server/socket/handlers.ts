/**
 * Socket.IO connection handling. The handshake is authenticated from the better-auth
 * session cookie; every event is validated with zod and checked against membership.
 * A socket joins `activity:<id>` for each of its user's conversations (sidebar badges)
 * and `conv:<id>` only after `conversation-join`, which replays stored events after
 * `afterSeq`. The room is joined before the replay is read, so nothing falls between.
 * Handshakes are limited per user (and, without a session, per address), and every
 * socket's events are budgeted before any handler runs (limits.ts).
 */
import type { Server, Socket } from "socket.io";
import { z } from "zod";
import { int32, storableText } from "../core/text.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "../protocol/events.ts";
import type { SessionUser } from "../auth/session.ts";
import { hasErrorCode } from "../protocol/errors.ts";
import type { Application } from "../services/application.ts";
import { activityRoom, conversationRoom, sessionRoom, userRoom } from "../protocol/rooms.ts";
import { rememberIo } from "./rooms.ts";
import type { DatabaseStatus } from "./database-status.ts";
import {
  anonymousHandshakeWait,
  createEventGuard,
  createOpenSocketCounter,
  DEFAULT_SOCKET_LIMITS,
  handshakeAddress,
  tooManyHandshakes,
  userHandshakeWait,
  type SocketLimits,
} from "./limits.ts";
import { log } from "../observability/log.ts";

/** a replay longer than this tells the client to reload the snapshot instead */
export const MAX_REPLAY_EVENTS = 2_000;

export interface SocketData {
  user: SessionUser;
  sessionId: string;
  sessionExpiresAt: Date;
}

/** setTimeout's ceiling (~24.8 days); a longer session is checked again then */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type BatonServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type BatonSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

const joinSchema = z.object({ conversationId: storableText().min(1).max(64), afterSeq: int32().min(0) });
const leaveSchema = z.object({ conversationId: storableText().min(1).max(64) });
/** a socket's typing notices are passed on at most this often per conversation (the client sends one every few seconds) */
const TYPING_MIN_INTERVAL_MS = 1_000;

export function attachSocketHandlers(
  io: Server,
  {
    app,
    limits = DEFAULT_SOCKET_LIMITS,
    databaseStatus,
  }: { app: Pick<Application, "live">; limits?: SocketLimits; databaseStatus?: { current(): DatabaseStatus | null } },
) {
  const server = io as BatonServer;
  rememberIo(io);
  const guardEvents = createEventGuard(limits);
  const openSockets = createOpenSocketCounter(limits);

  server.use((socket, next) => {
    const address = handshakeAddress(socket.request);
    const anonymous = () => {
      const wait = anonymousHandshakeWait(address, limits);
      next(wait === null ? new Error("unauthenticated") : tooManyHandshakes(wait));
    };
    const cookie = socket.handshake.headers.cookie;
    // a bad cookie is still looked up (the address ceiling bounds that): refusing it
    // early would also refuse the signed-in people who share the address
    if (!cookie) return anonymous();
    void (async () => {
      try {
        const headers = new Headers();
        headers.set("cookie", cookie);
        const found = await app.live.session(headers);
        if (!found) return anonymous();
        const wait = userHandshakeWait(found.user.id, limits);
        if (wait !== null) return next(tooManyHandshakes(wait));
        const full = openSockets.admit(found.user.id);
        if (full !== null) return next(tooManyHandshakes(full));
        // given back when the socket closes (below), or at once if it never connects
        socket.conn.once("close", () => openSockets.release(found.user.id));
        socket.data.user = found.user;
        socket.data.sessionId = found.session.id;
        socket.data.sessionExpiresAt = found.session.expiresAt;
        next();
      } catch {
        next(new Error("unauthenticated"));
      }
    })();
  });

  server.on("connection", (socket: BatonSocket) => {
    guardEvents(socket);
    const { user, sessionId } = socket.data;
    void socket.join(userRoom(user.id));
    // sign-out and revocation empty this room (auth.ts's session delete hook)
    void socket.join(sessionRoom(sessionId));
    watchSession(socket, app);
    // a browser that connects during an outage hears of it at once, not at the next change
    const status = databaseStatus?.current();
    if (status) socket.emit("database-status", status);
    // handlers are registered synchronously below, so no early event is dropped meanwhile
    app.live
      .conversationIdsOf({ userId: user.id })
      .then((conversationIds) => socket.join(conversationIds.map(activityRoom)))
      .catch((error) => log.error({ err: error, userId: user.id }, "joining activity rooms failed"));

    socket.on("conversation-join", async (request, ack) => {
      const reply = typeof ack === "function" ? ack : () => {};
      const parsed = joinSchema.safeParse(request);
      if (!parsed.success) return reply({ ok: false, error: "invalid_input" });
      const { conversationId, afterSeq } = parsed.data;
      try {
        const replay = await app.live.join({
          actor: user,
          conversationId,
          afterSeq,
          maxEvents: MAX_REPLAY_EVENTS,
          subscribe: async () => {
            await socket.join(conversationRoom(conversationId));
            await socket.join(activityRoom(conversationId));
          },
        });
        if (replay.kind === "too-long") return reply({ ok: false, error: "replay_too_long" });
        reply({ ok: true, events: replay.events, lastSeq: replay.lastSeq });
      } catch (error) {
        // same answer for "missing" and "not yours": a non-member learns nothing
        if (hasErrorCode(error, "not_found")) return reply({ ok: false, error: "not_found" });
        log.error({ err: error, conversationId }, "conversation-join failed");
        reply({ ok: false, error: "internal" });
      }
    });

    socket.on("conversation-leave", (request) => {
      const parsed = leaveSchema.safeParse(request);
      if (parsed.success) void socket.leave(conversationRoom(parsed.data.conversationId));
    });

    // "Alice is typing…": ephemeral, never stored. Only a socket in the conversation's room
    // (joined as a member; removal empties it) may say so, and at most once a second.
    const lastTyping = new Map<string, number>();
    socket.on("typing-started", (request) => {
      const parsed = leaveSchema.safeParse(request);
      if (!parsed.success) return;
      const room = conversationRoom(parsed.data.conversationId);
      if (!socket.rooms.has(room)) return;
      const now = Date.now();
      if (now - (lastTyping.get(room) ?? 0) < TYPING_MIN_INTERVAL_MS) return;
      lastTyping.set(room, now);
      socket.to(room).emit("typing-started", { conversationId: parsed.data.conversationId, userId: user.id, name: user.name });
    });
  });
}

/**
 * Closes the socket when its session expires, and once right after joining the session
 * room in case the session was deleted between the handshake and the join (its delete
 * hook would then have found the room empty).
 */
function watchSession(socket: BatonSocket, app: Pick<Application, "live">) {
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    const expiresAt = await app.live.sessionExpiry({ sessionId: socket.data.sessionId });
    if (!expiresAt || expiresAt.getTime() <= Date.now()) return void socket.disconnect(true);
    timer = setTimeout(
      () => void check().catch(() => socket.disconnect(true)),
      Math.min(MAX_TIMER_MS, expiresAt.getTime() - Date.now() + 50),
    );
    timer.unref();
  };
  check().catch((error) => log.error({ err: error }, "session check failed"));
  socket.on("disconnect", () => clearTimeout(timer));
}
