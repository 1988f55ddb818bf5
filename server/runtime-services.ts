/** Services wired to the process's runtime and live sockets, for route handlers and pages. */
import { getRuntime } from "./runtime.ts";
import { socketConversationNotifier, socketMembershipNotifier } from "./socket/rooms.ts";
import { createConversationManageServices } from "./services/conversation-manage.ts";
import { createMembershipServices } from "./services/memberships.ts";

export function membershipServices() {
  return createMembershipServices(getRuntime().prisma, socketMembershipNotifier);
}

export function conversationManageServices() {
  return createConversationManageServices(getRuntime().prisma, socketConversationNotifier);
}
