import { HttpError, requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";
import { BatonError } from "@/server/executor/errors.ts";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(request, async (runtime) => {
    const { id } = await context.params;
    try {
      const plan = await runtime.services.getPlan({ planId: id });
      await requireApiConversation(runtime, plan.conversationId);
      return Response.json(plan);
    } catch (error) {
      if (error instanceof BatonError && error.code === "not_found") throw new HttpError(404, "not_found", "plan was not found");
      throw error;
    }
  });
}
