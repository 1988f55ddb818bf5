import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { intParam } from "@/server/http/params.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string; stepIndex: string }> };

/** Step detail: input as rendered, execution log, runs with tokens and cost. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, planId, stepIndex } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const index = intParam(stepIndex, { name: "stepIndex", min: 1 });
  return respond(routes.conversations.stepDetail, await getRuntime().app.conversations.getStepDetail({ actor, planId, stepIndex: index }));
});
