import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { tryModel } from "@/server/agents/model-check.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { workspaceCliAgents, workspaceModels } from "@/server/workspace-models.ts";
import { cliAgentName } from "@/server/workspace/cli-agent.ts";
import { tryCliAgent } from "@/server/workspace/cli-check.ts";

const spec = routes.admin.testModel;

/**
 * Admin: one small call to a model id, to see it work (or why not) before saving an
 * agent with it; for a `cli:` model, whether its program starts (`--version`).
 */
export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const { model } = await readBody(spec, request);
  if (cliAgentName(model) !== null) {
    return respond(spec, await tryCliAgent({ cliAgents: workspaceCliAgents(), model }));
  }
  return respond(spec, await tryModel({ models: workspaceModels(), modelId: model }));
});
