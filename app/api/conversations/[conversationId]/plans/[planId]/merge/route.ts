import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string }> };

/** The plan's workspace branches and its result branch (members). */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  return respond(routes.workspace.plan, await getRuntime().app.workspace.getPlanWorkspace({ actor, planId }));
});

/**
 * Merge the plan's workspace branches into its result branch (members). A conflict is
 * what happened, not a failed request: 200 with `ok: false` naming the files and hunks.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  return respond(routes.workspace.merge, await getRuntime().app.workspace.mergePlanBranches({ actor, planId }));
});
