import { HttpError, requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";

/** A step's detail: its input as rendered, the execution log (with timings) and every run. */
export async function GET(request: Request, context: { params: Promise<{ id: string; index: string }> }) {
  return withApiToken(request, async (runtime) => {
    const { id, index } = await context.params;
    const stepIndex = Number(index);
    if (!Number.isInteger(stepIndex) || stepIndex < 1) throw new HttpError(400, "invalid_input", "index: must be a positive integer");
    const plan = await runtime.prisma.plan.findUnique({ where: { id }, select: { conversationId: true } });
    if (!plan) throw new HttpError(404, "not_found", "plan was not found");
    await requireApiConversation(runtime, plan.conversationId);
    return Response.json(await runtime.services.getStepDetail({ planId: id, stepIndex }));
  });
}
