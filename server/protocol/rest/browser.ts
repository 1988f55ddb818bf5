/** The routes the browser calls (the automation API's are left out of its bundle). */
import { accountRoutes } from "./account.ts";
import { adminRoutes } from "./admin.ts";
import { conversationRoutes } from "./conversations.ts";
import { memberRoutes } from "./members.ts";
import { searchRoutes } from "./search.ts";
import { workspaceRoutes } from "./workspace.ts";

export const browserRoutes = {
  account: accountRoutes,
  admin: adminRoutes,
  conversations: conversationRoutes,
  members: memberRoutes,
  search: searchRoutes,
  workspace: workspaceRoutes,
};
