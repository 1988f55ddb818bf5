import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { workspaceCliAgents, workspaceModels } from "@/server/workspace-models.ts";
import { createAgent, listAgentsForAdmin } from "@/server/services/admin-agents.ts";

export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return respond(routes.admin.agents, { agents: await listAgentsForAdmin(getRuntime().prisma, { actor }) });
});

export const POST = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await readBody(routes.admin.createAgent, request);
  const runtime = getRuntime();
  const agent = await createAgent(runtime.prisma, { actor, input, models: workspaceModels(), cliAgents: workspaceCliAgents() });
  runtime.executor.agentsChanged();
  return respond(routes.admin.createAgent, { agent });
});
