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
 * Member controls: cancel (stop) a plan, stop one step, retry or skip a failed step (a
 * retry after the plan ended reopens it), re-run an ended plan. Answers with what the
 * executor did: 200 with the plan's status and the step (for a re-run, the new plan), 409
 * naming why the control cannot apply now, 404 for a plan or step that does not exist.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const user = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const control = await readBody(spec, request);
  const { plans } = getRuntime().app;
  switch (control.action) {
    case "rerun": {
      const plan = await plans.rerunPlan({ actor: user, planId, byName: user.name });
      return respond(spec, { action: "rerun", plan: { id: plan.id, status: plan.status }, step: null });
    }
    case "cancel": {
      const result = await plans.cancelPlan({ actor: user, planId, reason: control.reason || `cancelled by ${user.name}` });
      return respond(spec, { action: "cancel", plan: { id: result.planId, status: result.status }, step: result.step });
    }
    case "stop": {
      const result = await plans.stopStep({ actor: user, planId, stepIndex: control.stepIndex, byName: user.name });
      return respond(spec, { action: "stop", plan: { id: result.planId, status: result.status }, step: result.step });
    }
    case "retry": {
      const result = await plans.retryStep({ actor: user, planId, stepIndex: control.stepIndex });
      return respond(spec, { action: "retry", plan: { id: result.planId, status: result.status }, step: result.step });
    }
    case "skip": {
      const reason = control.reason || `skipped by ${user.name}`;
      const result = await plans.skipStep({ actor: user, planId, stepIndex: control.stepIndex, reason });
      return respond(spec, { action: "skip", plan: { id: result.planId, status: result.status }, step: result.step });
    }
  }
});
