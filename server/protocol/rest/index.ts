/**
 * Every route of the app, by resource: the one table the route handlers and the
 * browser's client (components/api-client.ts) share. See define.ts for how to add one.
 */
import { accountRoutes } from "./account.ts";
import { adminRoutes } from "./admin.ts";
import { conversationRoutes } from "./conversations.ts";
import { memberRoutes } from "./members.ts";
import { v1Routes } from "./v1.ts";

export const routes = {
  account: accountRoutes,
  admin: adminRoutes,
  conversations: conversationRoutes,
  members: memberRoutes,
  v1: v1Routes,
};
