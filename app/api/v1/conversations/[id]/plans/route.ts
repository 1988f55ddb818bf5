import { parseJson, requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";
import { z } from "zod";
import { storableText } from "@/server/core/text.ts";

// The plan JSON itself is validated by the core, exactly as the commander's tool input is.
const submitPlan = z.object({ request: storableText().max(20_000).optional() }).passthrough();

export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const raw = await parseJson(request, submitPlan);
      const { request: requestText, ...plan } = raw;
      const created = await runtime.executor.submitPlan({ conversationId: id, raw: plan, request: requestText, userId: runtime.apiUserId });
      return Response.json(created, { status: 201 });
    },
    { params: context.params },
  );
}
