import { withApiToken } from "@/server/http/api-v1.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

export async function POST(request: Request) {
  return withApiToken(request, async ({ services, apiUserId }) => {
    const body = await readBody(routes.v1.createConversation, request);
    const conversation = await services.createConversation({ title: body.title, agentHandles: body.agents, userId: apiUserId });
    return respond(routes.v1.createConversation, conversation);
  });
}

export async function GET(request: Request) {
  return withApiToken(request, async ({ services, apiUserId }) =>
    respond(routes.v1.conversations, { conversations: await services.listConversations({ userId: apiUserId }) }),
  );
}
