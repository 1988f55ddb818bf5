/**
 * A member's controls over plans and runs: cancel (stop) a plan, stop one step, retry
 * or skip a step, re-run an ended plan, stop a run, and a plan submitted directly (the
 * automation API). Each answers with what happened: the plan as it now is, or a
 * `conflict` naming why the control cannot apply (the step is not running, the plan is
 * still running…), or `not_found` for a plan, step or run that does not exist or is
 * outside the member's conversations. Stopping a step, reopening and re-running a plan
 * go in the audit log.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { PlanEvent } from "../core/types.ts";
import { isTerminalPlan } from "../core/status.ts";
import { stepDTO } from "../executor/plan-effects.ts";
import { assertMember, assertPlanMember, type Actor } from "../access/actor.ts";
import { recordAudit, type AuditAction } from "../access/audit.ts";
import { BatonError, conflict, notFound } from "../protocol/errors.ts";
import type { PlanDTO, StepDTO } from "../protocol/dto.ts";
import type { Engine } from "./engine.ts";
import type { PlanSubmission } from "../executor/executor.ts";

type Tx = Prisma.TransactionClient;
type Uow = Parameters<Parameters<Engine["inConversation"]>[1]>[1];
type UnitPlan = Parameters<Engine["inConversation"]>[2];

/** What a member's plan control did: the plan's status after it, and the step it named. */
export interface PlanControlResult {
  planId: string;
  status: PlanDTO["status"];
  step: StepDTO | null;
}

/** What a Stop really stopped: one step of a plan, a lone run (a mention, a reply), or a whole plan. */
interface StopResult {
  stopped: "step" | "run" | "plan";
  planId: string | null;
  stepIndex: number | null;
}

export function createPlanControls({ prisma, engine }: { prisma: PrismaClient; engine: Engine }) {
  /**
   * The engine's unit on a plan's conversation. Its owner may delete the conversation
   * between the read that found the plan and the unit's write (a control sent that same
   * moment): the write then fails on a foreign key, which is "not found" to the person
   * who sent the control, not a server error.
   */
  async function inPlanConversation<T>(conversationId: string, work: (tx: Tx, uow: Uow) => Promise<T>, plan?: UnitPlan): Promise<T> {
    try {
      return await engine.inConversation(conversationId, work, plan);
    } catch (error) {
      if (error instanceof BatonError) throw error;
      if ((await prisma.conversation.count({ where: { id: conversationId } })) === 0) throw notFound("conversation");
      throw error;
    }
  }

  async function planControl(
    input: { actor: Actor; planId: string },
    event: PlanEvent | ((status: PlanDTO["status"]) => PlanEvent),
    /** the audit row the control leaves when it applied, if it leaves one */
    audit?: (event: PlanEvent) => { action: AuditAction; detail: Record<string, string | number | null> } | null,
  ): Promise<PlanControlResult> {
    const { planId } = input;
    const found = await prisma.plan.findUnique({ where: { id: planId }, select: { conversationId: true } });
    if (!found) throw notFound("plan");
    const outcome = await inPlanConversation(
      found.conversationId,
      async (tx, uow) => {
        await assertPlanMember(tx, input.actor, planId);
        // which event a control means can depend on the plan's status, read under the lock
        const applied =
          typeof event === "function"
            ? event((await tx.plan.findUnique({ where: { id: planId }, select: { status: true } }))?.status ?? "running")
            : event;
        const result = await engine.applyPlanEvent(tx, uow, { planId, event: applied });
        const row = result && !result.ignored && audit ? audit(applied) : null;
        if (result && row) {
          await recordAudit(tx, {
            actor: input.actor,
            action: row.action,
            conversationId: found.conversationId,
            target: { kind: "plan", id: planId },
            detail: { title: result.plan.title, ...row.detail },
          });
        }
        return result && { ...result, applied };
      },
      { planId },
    );
    // thrown after the unit committed, so the refusal stays in the plan's execution log
    if (!outcome) throw notFound("plan");
    const { plan, ignored, applied: named } = outcome;
    const stepIndex = "stepIndex" in named ? named.stepIndex : null;
    const step = stepIndex === null ? undefined : plan.state.steps.find((candidate) => candidate.index === stepIndex);
    if (stepIndex !== null && !step) throw new BatonError("not_found", `step ${stepIndex} was not found in this plan`);
    if (ignored) throw conflict(ignored);
    return { planId, status: plan.state.status, step: step ? stepDTO(plan, step) : null };
  }

  const controls = {
    /**
     * An API client's idempotent resubmission: null when no plan has this id, else the
     * hash of the body it was submitted with (null for a plan stored without one).
     */
    async submission({ planId }: { planId: string }): Promise<{ submissionHash: string | null } | null> {
      return prisma.plan.findUnique({ where: { id: planId }, select: { submissionHash: true } });
    },

    /** A plan submitted directly (API, automation): validated exactly like the commander's. */
    submitPlan(input: PlanSubmission): Promise<PlanDTO> {
      return engine.submitPlan(input);
    },

    /** Stop the plan: every open step is skipped and every live run cancelled. */
    cancelPlan(input: { actor: Actor; planId: string; reason: string }): Promise<PlanControlResult> {
      return planControl(input, { type: "cancel", reason: input.reason }, () => ({ action: "plan.stopped", detail: {} }));
    },

    /**
     * Retry a failed step. While the plan runs, the step alone goes back to pending; once
     * the plan has ended, the plan is reopened: the step (failed or skipped) and the steps
     * skipped because of it run again.
     */
    retryStep(input: { actor: Actor; planId: string; stepIndex: number }): Promise<PlanControlResult> {
      return planControl(
        input,
        (status): PlanEvent =>
          isTerminalPlan(status) ? { type: "reopen", stepIndex: input.stepIndex } : { type: "retry-step", stepIndex: input.stepIndex },
        // a retry inside a running plan is everyday work; bringing back an ended plan is recorded
        (event) => (event.type === "reopen" ? { action: "plan.reopened", detail: { stepIndex: input.stepIndex } } : null),
      );
    },

    skipStep(input: { actor: Actor; planId: string; stepIndex: number; reason: string }): Promise<PlanControlResult> {
      return planControl(input, { type: "skip-step", stepIndex: input.stepIndex, reason: input.reason });
    },

    /** Stop one step: it fails "stopped by <name>" under its own on_failure; the plan's other steps go on. */
    stopStep(input: { actor: Actor; planId: string; stepIndex: number; byName: string }): Promise<PlanControlResult> {
      return planControl(input, { type: "stop-step", stepIndex: input.stepIndex, by: input.byName }, () => ({
        action: "plan.step_stopped",
        detail: { stepIndex: input.stepIndex },
      }));
    },

    /** A new plan from an ended plan's spec, linked to it (`rerunOfId`). */
    async rerunPlan(input: { actor: Actor; planId: string; byName: string }): Promise<PlanDTO> {
      const found = await prisma.plan.findUnique({ where: { id: input.planId }, select: { conversationId: true } });
      if (!found) throw notFound("plan");
      return inPlanConversation(found.conversationId, async (tx, uow) => {
        await assertPlanMember(tx, input.actor, input.planId);
        const plan = await engine.rerunPlan(tx, uow, { planId: input.planId, userId: input.actor.id, byName: input.byName });
        await recordAudit(tx, {
          actor: input.actor,
          action: "plan.rerun",
          conversationId: found.conversationId,
          target: { kind: "plan", id: input.planId },
          detail: { title: plan.title, rerunId: plan.id },
        });
        return plan;
      });
    },

    /**
     * A member's Stop beside a run: a plan step's run stops that step only (the plan
     * decides what its failure means); a direct mention's or the commander's reply stops
     * itself; a commander's decision run, which belongs to no step, stops its plan.
     */
    async stopRun(input: { actor: Actor; conversationId: string; runId: string; byName: string }): Promise<StopResult> {
      const target = await stopTarget(prisma, input);
      if (target.kind === "step") {
        await controls.stopStep({ actor: input.actor, planId: target.planId, stepIndex: target.stepIndex, byName: input.byName });
        return { stopped: "step", planId: target.planId, stepIndex: target.stepIndex };
      }
      if (target.kind === "plan") {
        await controls.cancelPlan({ actor: input.actor, planId: target.planId, reason: `stopped by ${input.byName}` });
        return { stopped: "plan", planId: target.planId, stepIndex: null };
      }
      await engine.inConversation(input.conversationId, async (tx, uow) => {
        await assertMember(tx, input.actor, input.conversationId);
        const run = await tx.run.findUnique({ where: { id: input.runId }, select: { conversationId: true, status: true } });
        if (!run || run.conversationId !== input.conversationId) throw notFound("run");
        if (run.status !== "queued" && run.status !== "running") throw conflict(`the run has already ended (${run.status})`);
        await engine.cancelLoneRun(tx, uow, input.runId);
      });
      return { stopped: "run", planId: null, stepIndex: null };
    },
  };
  return controls;
}

type StopTarget = { kind: "run" } | { kind: "plan"; planId: string } | { kind: "step"; planId: string; stepIndex: number };

/** What stopping the run means: the run itself, its step, or its plan. Throws not_found for a run of another conversation. */
async function stopTarget(db: PrismaClient | Tx, input: { actor: Actor; conversationId: string; runId: string }): Promise<StopTarget> {
  await assertMember(db, input.actor, input.conversationId);
  const run = await db.run.findUnique({
    where: { id: input.runId },
    select: { conversationId: true, planId: true, kind: true, status: true, step: { select: { index: true } } },
  });
  if (!run || run.conversationId !== input.conversationId) throw notFound("run");
  // the planning reply counts toward its plan but is not one of its runs
  if (!run.planId || run.kind === "chat") return { kind: "run" };
  if (run.status !== "queued" && run.status !== "running") throw conflict(`the run has already ended (${run.status})`);
  // a step's own run stops the step; a commander's decision run (about a step, not of it) stops the plan
  const ofStep = run.step !== null && (run.kind === "step" || run.kind === "commander-step");
  return ofStep ? { kind: "step", planId: run.planId, stepIndex: run.step!.index } : { kind: "plan", planId: run.planId };
}
