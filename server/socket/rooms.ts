/**
 * The process-wide Socket.IO handle (room names: protocol/rooms.ts), so route handlers (bundled by
 * Next separately from the custom server) can add a user's live sockets to a room.
 * With the PostgreSQL adapter, socketsJoin/socketsLeave/disconnectSockets reach the
 * sockets of every process.
 */
import type { Server } from "socket.io";
import type { ConversationChangeNotifier } from "../services/conversation-manage.ts";
import type { MembershipNotifier } from "../services/memberships.ts";
import type { MentionNotice } from "../protocol/events.ts";
import { activityRoom, conversationRoom, sessionRoom, userRoom } from "../protocol/rooms.ts";
import { onSessionEnded } from "../auth/auth.ts";

const ioKey = "__batonSocketIo";
type IoHolder = { [ioKey]?: Server };

export function rememberIo(io: Server) {
  (globalThis as IoHolder)[ioKey] = io;
  onSessionEnded(disconnectSession);
}

function currentIo(): Server | undefined {
  return (globalThis as IoHolder)[ioKey];
}

/** After a user joins (or creates) a conversation, their open tabs start receiving its activity. */
export function joinUserToConversation({ userId, conversationId }: { userId: string; conversationId: string }) {
  currentIo()?.in(userRoom(userId)).socketsJoin(activityRoom(conversationId));
}

/** Sign-out or revocation: the session's sockets close now, not at their next reconnect. */
export function disconnectSession(sessionId: string) {
  currentIo()?.in(sessionRoom(sessionId)).disconnectSockets(true);
}

/** Live side of membership changes (see services/memberships.ts). */
export const socketMembershipNotifier: MembershipNotifier = {
  userAdded({ userId, conversationId }) {
    joinUserToConversation({ userId, conversationId });
    currentIo()?.to(userRoom(userId)).emit("membership-changed", { conversationId, change: "added" });
  },
  userRemoved({ userId, conversationId }) {
    const io = currentIo();
    if (!io) return;
    // leave first, so not one more event of the room reaches a removed person
    io.in(userRoom(userId)).socketsLeave([conversationRoom(conversationId), activityRoom(conversationId)]);
    io.to(userRoom(userId)).emit("membership-changed", { conversationId, change: "removed" });
  },
  membersChanged({ conversationId }) {
    currentIo()?.to(conversationRoom(conversationId)).emit("members-changed", { conversationId });
  },
  invitationsChanged({ userId }) {
    currentIo()?.to(userRoom(userId)).emit("invitations-changed");
  },
};

/** People mentioned in a message hear of it on their own sockets, wherever they are in the app. */
export function notifyMentioned({ userIds, mention }: { userIds: string[]; mention: MentionNotice }) {
  if (userIds.length === 0) return;
  currentIo()?.to(userIds.map(userRoom)).emit("mention-received", mention);
}

/** Live side of renames, archiving and deletion (see services/conversation-manage.ts). */
export const socketConversationNotifier: ConversationChangeNotifier = {
  conversationChanged({ conversationId, userIds }) {
    const io = currentIo();
    if (!io || userIds.length === 0) return;
    io.to(userIds.map(userRoom)).emit("conversation-changed", { conversationId, change: "updated" });
  },
  conversationDeleted({ conversationId, userIds }) {
    const io = currentIo();
    if (!io || userIds.length === 0) return;
    io.in(userIds.map(userRoom)).socketsLeave([conversationRoom(conversationId), activityRoom(conversationId)]);
    io.to(userIds.map(userRoom)).emit("conversation-changed", { conversationId, change: "deleted" });
  },
};
