import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { workspaceCliAgents, workspaceModels } from "@/server/workspace-models.ts";
import { updateAgent } from "@/server/services/admin-agents.ts";

type Context = { params: Promise<{ agentId: string }> };
const spec = routes.admin.updateAgent;

export const PUT = handle(async (request: Request, context: Context) => {
  const actor = await requireAdmin(request);
  const { agentId } = await context.params;
  const input = await readBody(spec, request);
  const runtime = getRuntime();
  const agent = await updateAgent(runtime.prisma, { actor, agentId, input, models: workspaceModels(), cliAgents: workspaceCliAgents() });
  runtime.executor.agentsChanged();
  return respond(spec, { agent });
});
