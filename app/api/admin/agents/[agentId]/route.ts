import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ agentId: string }> };
const spec = routes.admin.updateAgent;

export const PUT = handle(async (request: Request, context: Context) => {
  const actor = await requireAdmin(request);
  const { agentId } = await context.params;
  const input = await readBody(spec, request);
  const agent = await getRuntime().app.admin.updateAgent({ actor, agentId, input });
  return respond(spec, { agent });
});

export const DELETE = handle(async (request: Request, context: Context) => {
  const actor = await requireAdmin(request);
  const { agentId } = await context.params;
  const deleted = await getRuntime().app.admin.deleteAgent({ actor, agentId });
  return respond(routes.admin.deleteAgent, { deleted });
});
