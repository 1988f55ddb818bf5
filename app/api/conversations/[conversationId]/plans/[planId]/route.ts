import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string }> };
const spec = routes.conversations.controlPlan;

/** A plan with its steps, for members: the snapshot leaves an ended plan's steps out until someone opens it. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const user = await requireMember(request, conversationId);
  const plan = await getRuntime().app.conversations.getConversationPlan({ actor: user, conversationId, planId });
  return respond(routes.conversations.plan, { plan });
});

/**
 * Member controls: cancel a plan, retry or skip a failed step. Answers with what the
 * executor did: 200 with the plan's status and the step, 409 naming why the control
 * cannot apply now, 404 for a plan or step that does not exist.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const user = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const control = await readBody(spec, request);
  const { plans } = getRuntime().app;
  const result =
    control.action === "cancel"
      ? await plans.cancelPlan({ actor: user, planId, reason: control.reason || `cancelled by ${user.name}` })
      : control.action === "retry"
        ? await plans.retryStep({ actor: user, planId, stepIndex: control.stepIndex })
        : await plans.skipStep({
            actor: user,
            planId,
            stepIndex: control.stepIndex,
            reason: control.reason || `skipped by ${user.name}`,
          });
  return respond(spec, { action: control.action, plan: { id: result.planId, status: result.status }, step: result.step });
});
