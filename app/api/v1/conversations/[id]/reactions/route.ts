import { z } from "zod";
import { parseJson, requireApiConversation, withSignedBody } from "@/server/http/api-v1.ts";
import { routeReaction } from "@/server/executor/reactions.ts";

const reaction = z.object({
  source: z.string().min(1).max(40),
  target: z.union([
    z.object({ planId: z.string().min(1), stepIndex: z.number().int().min(1) }),
    z.object({ agent: z.string().min(1).max(40) }),
  ]),
  payload: z.unknown(),
});

/** An outside event for the agent that owns the work: bearer token or signed body. */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withSignedBody(request, async (runtime, raw) => {
    const { id } = await context.params;
    await requireApiConversation(runtime, id);
    const body = await parseJson(raw, reaction);
    const routed = await routeReaction(runtime.executor, { conversationId: id, ...body });
    return Response.json({ messageId: routed.message.id, runId: routed.runId, agent: routed.agent }, { status: 202 });
  });
}
