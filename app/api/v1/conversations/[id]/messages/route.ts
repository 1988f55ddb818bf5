import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { parseJson, requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";

const postMessage = z.object({
  body: storableText().max(20_000),
  mentions: z.array(storableText().min(1).max(40)).max(20).default([]),
});

export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const body = await parseJson(request, postMessage);
      const message = await runtime.executor.postMessage({
        conversationId: id,
        author: { kind: "user", userId: runtime.apiUserId },
        body: body.body,
        mentionHandles: body.mentions,
      });
      return Response.json(message, { status: 201 });
    },
    { params: context.params },
  );
}
