import { withApiToken } from "@/server/http/api-v1.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

export async function GET(request: Request) {
  return withApiToken(request, async ({ services }) => respond(routes.v1.agents, { agents: await services.listAgents() }));
}
