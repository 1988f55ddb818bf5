/**
 * A member's controls over plans and runs: cancel a plan, retry or skip a step, stop a
 * run, and a plan submitted directly (the automation API). Each answers with what
 * happened: the plan as it now is, or a `conflict` naming why the control cannot apply
 * (the plan ended, the step is not failed…), or `not_found` for a plan, step or run that
 * does not exist or is outside the member's conversations.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { PlanEvent } from "../core/types.ts";
import { stepDTO } from "../executor/plan-effects.ts";
import { assertMember, assertPlanMember, type Actor } from "../access/actor.ts";
import { BatonError, conflict, notFound } from "../protocol/errors.ts";
import type { PlanDTO, StepDTO } from "../protocol/dto.ts";
import type { Engine } from "./engine.ts";

type Tx = Prisma.TransactionClient;

/** What a member's plan control did: the plan's status after it, and the step it named. */
export interface PlanControlResult {
  planId: string;
  status: PlanDTO["status"];
  step: StepDTO | null;
}

export function createPlanControls({ prisma, engine }: { prisma: PrismaClient; engine: Engine }) {
  async function planControl(input: { actor: Actor; planId: string }, event: PlanEvent): Promise<PlanControlResult> {
    const { planId } = input;
    const found = await prisma.plan.findUnique({ where: { id: planId }, select: { conversationId: true } });
    if (!found) throw notFound("plan");
    const outcome = await engine.inConversation(
      found.conversationId,
      async (tx, uow) => {
        await assertPlanMember(tx, input.actor, planId);
        return engine.applyPlanEvent(tx, uow, { planId, event });
      },
      { planId },
    );
    // thrown after the unit committed, so the refusal stays in the plan's execution log
    if (!outcome) throw notFound("plan");
    const { plan, ignored } = outcome;
    const stepIndex = "stepIndex" in event ? event.stepIndex : null;
    const step = stepIndex === null ? undefined : plan.state.steps.find((candidate) => candidate.index === stepIndex);
    if (stepIndex !== null && !step) throw new BatonError("not_found", `step ${stepIndex} was not found in this plan`);
    if (ignored) throw conflict(ignored);
    return { planId, status: plan.state.status, step: step ? stepDTO(plan, step) : null };
  }

  const controls = {
    /** Whether a plan with this id exists (an API client's idempotent resubmission). */
    async exists({ planId }: { planId: string }): Promise<boolean> {
      return (await prisma.plan.count({ where: { id: planId } })) > 0;
    },

    /** A plan submitted directly (API, automation): validated exactly like the commander's. */
    submitPlan(input: { conversationId: string; raw: unknown; request?: string; userId?: string; planId?: string }): Promise<PlanDTO> {
      return engine.submitPlan(input);
    },

    cancelPlan(input: { actor: Actor; planId: string; reason: string }): Promise<PlanControlResult> {
      return planControl(input, { type: "cancel", reason: input.reason });
    },

    retryStep(input: { actor: Actor; planId: string; stepIndex: number }): Promise<PlanControlResult> {
      return planControl(input, { type: "retry-step", stepIndex: input.stepIndex });
    },

    skipStep(input: { actor: Actor; planId: string; stepIndex: number; reason: string }): Promise<PlanControlResult> {
      return planControl(input, { type: "skip-step", stepIndex: input.stepIndex, reason: input.reason });
    },

    /**
     * A member's Stop: a direct mention's or commander reply's run stops; a plan's run
     * stops its plan (the plan decides what a stopped step means, a lone run has nothing
     * to decide).
     */
    async stopRun(input: {
      actor: Actor;
      conversationId: string;
      runId: string;
      reason?: string;
    }): Promise<{ stopped: "run" | "plan"; planId: string | null }> {
      const target = await stopTarget(prisma, input);
      if (target.kind === "plan") {
        await controls.cancelPlan({ actor: input.actor, planId: target.planId, reason: input.reason ?? "stopped by a member" });
        return { stopped: "plan", planId: target.planId };
      }
      await engine.inConversation(input.conversationId, async (tx, uow) => {
        await assertMember(tx, input.actor, input.conversationId);
        const run = await tx.run.findUnique({ where: { id: input.runId }, select: { conversationId: true, status: true } });
        if (!run || run.conversationId !== input.conversationId) throw notFound("run");
        if (run.status !== "queued" && run.status !== "running") throw conflict(`the run has already ended (${run.status})`);
        await engine.cancelLoneRun(tx, uow, input.runId);
      });
      return { stopped: "run", planId: null };
    },
  };
  return controls;
}

type StopTarget = { kind: "run" } | { kind: "plan"; planId: string };

/** What stopping the run means: the run itself, or its plan. Throws not_found for a run of another conversation. */
async function stopTarget(db: PrismaClient | Tx, input: { actor: Actor; conversationId: string; runId: string }): Promise<StopTarget> {
  await assertMember(db, input.actor, input.conversationId);
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { conversationId: true, planId: true, kind: true } });
  if (!run || run.conversationId !== input.conversationId) throw notFound("run");
  // the planning reply counts toward its plan but is not one of its runs
  return run.planId && run.kind !== "chat" ? { kind: "plan", planId: run.planId } : { kind: "run" };
}
