import { withApiToken } from "@/server/http/api-v1.ts";

export async function GET(request: Request) {
  return withApiToken(request, async ({ services }) => Response.json({ agents: await services.listAgents() }));
}
