import { requireApiConversation, withSignedBody } from "@/server/http/api-v1.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { routeReaction } from "@/server/executor/reactions.ts";

const spec = routes.v1.react;

/** An outside event for the agent that owns the work: bearer token or a signed delivery (recorded, so never twice). */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withSignedBody(
    request,
    async (runtime, raw, delivery) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const body = await readBody(spec, raw);
      const routed = await routeReaction(runtime.executor, { conversationId: id, ...body, delivery });
      return respond(spec, { messageId: routed.message.id, runId: routed.runId, agent: routed.agent });
    },
    { params: context.params, conversation: "id" },
  );
}
