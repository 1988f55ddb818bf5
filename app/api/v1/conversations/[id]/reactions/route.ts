import { z } from "zod";
import { int32, storableText } from "@/server/core/text.ts";
import { parseJson, requireApiConversation, withSignedBody } from "@/server/http/api-v1.ts";
import { routeReaction } from "@/server/executor/reactions.ts";

const reaction = z.object({
  source: storableText().min(1).max(40),
  target: z.union([
    z.object({ planId: storableText().min(1).max(64), stepIndex: int32().min(1) }),
    z.object({ agent: storableText().min(1).max(40) }),
  ]),
  payload: z.unknown(),
});

/** An outside event for the agent that owns the work: bearer token or a signed delivery (recorded, so never twice). */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withSignedBody(
    request,
    async (runtime, raw, delivery) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const body = await parseJson(raw, reaction);
      const routed = await routeReaction(runtime.executor, { conversationId: id, ...body, delivery });
      return Response.json({ messageId: routed.message.id, runId: routed.runId, agent: routed.agent }, { status: 202 });
    },
    context.params,
  );
}
