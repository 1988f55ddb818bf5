import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return respond(routes.admin.agents, { agents: await getRuntime().app.admin.listAgents({ actor }) });
});

export const POST = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await readBody(routes.admin.createAgent, request);
  const agent = await getRuntime().app.admin.createAgent({ actor, input });
  return respond(routes.admin.createAgent, { agent });
});
