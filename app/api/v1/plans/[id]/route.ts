import { requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(request, async (runtime) => {
    const { id } = await context.params;
    const plan = await runtime.services.getPlan({ planId: id });
    await requireApiConversation(runtime, plan.conversationId);
    return Response.json(plan);
  }, context.params);
}
