import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string }> };

/** Owners fast-forward the base branch to the plan's result branch; 409 when the base moved since the merge. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  return respond(routes.workspace.accept, await getRuntime().app.workspace.acceptPlanResult({ actor, planId }));
});
