/**
 * Room names and the process-wide Socket.IO handle, so route handlers (bundled by
 * Next separately from the custom server) can add a user's live sockets to a room.
 */
import type { Server } from "socket.io";

export const conversationRoom = (conversationId: string) => `conv:${conversationId}`;
export const activityRoom = (conversationId: string) => `activity:${conversationId}`;
export const userRoom = (userId: string) => `user:${userId}`;

const ioKey = "__batonSocketIo";
type IoHolder = { [ioKey]?: Server };

export function rememberIo(io: Server) {
  (globalThis as IoHolder)[ioKey] = io;
}

/** After a user joins (or creates) a conversation, their open tabs start receiving its activity. */
export function joinUserToConversation({ userId, conversationId }: { userId: string; conversationId: string }) {
  const io = (globalThis as IoHolder)[ioKey];
  io?.in(userRoom(userId)).socketsJoin(activityRoom(conversationId));
}
