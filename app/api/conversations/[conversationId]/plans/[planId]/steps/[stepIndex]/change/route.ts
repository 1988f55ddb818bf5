import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { intParam } from "@/server/http/params.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string; stepIndex: string }> };

/** A workspace step's change: branch, commits, diff stats and the diff (members). */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, planId, stepIndex } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const index = intParam(stepIndex, { name: "stepIndex", min: 1 });
  return respond(routes.workspace.stepChange, await getRuntime().app.workspace.getStepChange({ actor, planId, stepIndex: index }));
});
