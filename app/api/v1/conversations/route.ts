import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { parseJson, withApiToken } from "@/server/http/api-v1.ts";

const createConversation = z.object({
  title: storableText().min(1).max(200),
  agents: z.array(storableText().min(1).max(40)).max(50).default([]),
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
