import { handle, requireUser } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

/** Agents anyone may add to a new conversation. */
export const GET = handle(async (request: Request) => {
  await requireUser(request);
  return respond(routes.account.agents, { agents: await getRuntime().app.conversations.listAgents() });
});
