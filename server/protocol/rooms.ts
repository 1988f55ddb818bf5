/**
 * Socket.IO room names: the one place they are spelled. The socket handlers join
 * them, the event publisher and the membership notifier send to them.
 */

/** sockets that joined a conversation (`conversation-join`): its events, deltas and run status */
export const conversationRoom = (conversationId: string) => `conv:${conversationId}`;
/** every socket of every member of a conversation: sidebar badges */
export const activityRoom = (conversationId: string) => `activity:${conversationId}`;
/** every socket of one user: membership and invitation changes */
export const userRoom = (userId: string) => `user:${userId}`;
/** every socket opened with one better-auth session: disconnected when it ends */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
