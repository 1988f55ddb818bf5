import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ agentId: string }> };
const spec = routes.admin.setAgentEnabled;

export const PUT = handle(async (request: Request, context: Context) => {
  const actor = await requireAdmin(request);
  const { agentId } = await context.params;
  const { enabled } = await readBody(spec, request);
  const agent = await getRuntime().app.admin.setAgentEnabled({ actor, agentId, enabled });
  return respond(spec, { agent });
});
