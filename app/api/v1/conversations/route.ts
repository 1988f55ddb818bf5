import { z } from "zod";
import { parseJson, withApiToken } from "@/server/http/api-v1.ts";

const createConversation = z.object({
  title: z.string().min(1).max(200),
  agents: z.array(z.string().min(1)).max(50).default([]),
});

export async function POST(request: Request) {
  return withApiToken(request, async ({ services, apiUserId }) => {
    const body = await parseJson(request, createConversation);
    const conversation = await services.createConversation({ title: body.title, agentHandles: body.agents, userId: apiUserId });
    return Response.json(conversation, { status: 201 });
  });
}

export async function GET(request: Request) {
  return withApiToken(request, async ({ services, apiUserId }) =>
    Response.json({ conversations: await services.listConversations({ userId: apiUserId }) }),
  );
}
