/**
 * Inside a conversation's locked transaction: load a plan, ask the core what to do
 * about one event, write the decision back and carry out its commands. Dispatching
 * a step to a sub-agent is an ordinary @-mention message from the commander, which
 * starts a run through the same entry point as a person's mention (DESIGN rule 2).
 */
import { randomUUID } from "node:crypto";
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import { reconcile } from "../core/reconcile.ts";
import { isTerminalPlan, isTerminalStep } from "../core/status.ts";
import { outcomeReport, recoveredAfterRetry } from "../core/outcome.ts";
import { closingMessage } from "./closing-message.ts";
import { notices } from "../core/notices.ts";
import { COMMANDER_ASSIGNEE, USER_ASSIGNEE, type CapacityView, type PlanCommand, type PlanEvent, type StepState } from "../core/types.ts";
import { prismaSql } from "../db/sql-runner.ts";
import { loadPlan, readPlanContext, savePlan, type LoadedPlan, type PlanContext } from "../adapters/prisma/plan-repository.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import { stepStateDTO, toRunDTO } from "../adapters/prisma/serializers.ts";
import type { StepDTO } from "../protocol/dto.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { createRun } from "./run-records.ts";
import { stepRunModel } from "./run-model-choice.ts";
import { noteHedgeLoser, startHedgeRun } from "./hedge-runs.ts";
import { LOST_HEDGE } from "../core/hedge.ts";
import { insertMessage } from "./messages.ts";
import { closeAbandonedForms, closeForm, openForm, openForms } from "./plan-forms.ts";
import type { ExecutorContext } from "./context.ts";

type Tx = Prisma.TransactionClient;

/**
 * The core may dispatch up to max_parallel; the agent and model pools are enforced
 * where a run is claimed (run-queue.ts), exactly and across processes.
 */
const NO_POOLS: CapacityView = { agents: {}, models: {}, agentModel: {} };

/**
 * The agents an admin disabled, and those of the plan's open steps deleted since: the
 * core fails such a step when it becomes ready instead of dispatching it. From the agent
 * directory's copy (seconds stale at most on another process), so it costs no read.
 */
function unavailableAssignees(context: ExecutorContext, tx: Tx, steps: readonly StepState[]): Promise<Map<string, string>> {
  const handles = steps
    .filter((step) => !isTerminalStep(step.status) && step.assignee !== USER_ASSIGNEE && step.assignee !== COMMANDER_ASSIGNEE)
    .map((step) => step.assignee);
  return context.agents.unavailable(tx, handles);
}

/**
 * The plan context for this reconcile: what was read together with the lock when the
 * unit was entered for this plan (used once, before anything is written), else a read.
 */
export async function planContext(tx: Tx, uow: UnitOfWork, input: { planId: string; runId?: string }): Promise<PlanContext> {
  const prefetched = uow.prefetched;
  if (prefetched && prefetched.planId === input.planId && prefetched.runId === (input.runId ?? null)) {
    uow.prefetched = null;
    return prefetched.context;
  }
  uow.prefetched = null;
  return readPlanContext(prismaSql(tx), input);
}

/**
 * The plan as stored now: this transaction's own copy if it already changed it, the
 * process cache if the row's version still matches, else a fresh read.
 */
async function currentPlan(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  planId: string,
  read: PlanContext,
): Promise<LoadedPlan | null> {
  const own = uow.plans.get(planId);
  if (own) return own;
  if (read.version === null) return null;
  const cached = context.plans.get(planId);
  if (cached && cached.version === read.version) return cached;
  return loadPlan(tx, planId);
}

/** What one reconcile changed, for a caller that posts messages about it. */
export interface PlanChange {
  /** false when the event was stale or did not apply: nothing changed */
  applied: boolean;
  before: LoadedPlan;
  after: LoadedPlan;
}

/** One event for one plan's reconcile. */
interface PlanEventInput {
  planId: string;
  event: PlanEvent;
  /** the plan's version and the run's status, when the caller knows them (else they are read) */
  read?: PlanContext;
  beforeCommands?: (change: PlanChange) => void;
  /**
   * bump the plan's version even if the event changes nothing: the unit changed a row
   * that optimistic units read outside the lock on the strength of the version (a form)
   */
  bumpVersion?: boolean;
}

/**
 * Feeds one event to the core for one plan and performs what it decides.
 * `beforeCommands` sees the decision before its commands run, so a message about
 * the event (an error, a decision) lands in chat before the messages the commands
 * post (a dispatch, the closing message).
 */
export async function reconcilePlan(context: ExecutorContext, tx: Tx, uow: UnitOfWork, input: PlanEventInput): Promise<LoadedPlan | null> {
  return (await applyPlanEvent(context, tx, uow, input))?.plan ?? null;
}

/**
 * reconcilePlan that also says whether the event applied: `ignored` is the core's
 * reason when it did not (what a member's control answers with). Null: no such plan.
 */
export async function applyPlanEvent(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: PlanEventInput,
): Promise<{ plan: LoadedPlan; ignored: string | null } | null> {
  const read = input.read ?? (await planContext(tx, uow, { planId: input.planId }));
  const loaded = await currentPlan(context, tx, uow, input.planId, read);
  if (!loaded) return null;
  const now = context.clock.now();
  const result = reconcile({
    plan: loaded.state,
    event: input.event,
    now,
    random: context.random,
    // pools are the run queue's: a dispatched run waits there for a slot (run-queue.ts)
    capacity: NO_POOLS,
    unavailable: await unavailableAssignees(context, tx, loaded.state.steps),
    newRunId: randomUUID,
  });
  for (const line of result.log) {
    uow.log({ planId: loaded.state.id, stepIndex: line.stepIndex, phase: "reconcile", message: line.message });
  }
  const unchanged = result.changedSteps.length === 0 && result.commands.length === 0 && result.plan.status === loaded.state.status;
  if (result.plan === loaded.state || unchanged) {
    const kept = input.bumpVersion ? savePlan(uow.batch, { loaded, next: loaded.state, changedSteps: [], now: new Date(now) }) : loaded;
    uow.cachePlan(kept);
    input.beforeCommands?.({ applied: false, before: loaded, after: loaded });
    return { plan: kept, ignored: result.ignored ?? null }; // nothing changed (stale or inapplicable event)
  }
  const saved = savePlan(uow.batch, {
    loaded,
    next: result.plan,
    changedSteps: result.changedSteps,
    now: new Date(now),
  });
  uow.cachePlan(saved);
  input.beforeCommands?.({ applied: true, before: loaded, after: saved });
  await announceRecoveries(context, tx, uow, { before: loaded, after: saved });

  for (const command of result.commands) {
    await applyCommand(context, tx, uow, saved, command);
  }
  await closeAbandonedForms(tx, uow, { before: loaded, after: saved, changed: result.changedSteps });
  for (const index of new Set(result.changedSteps)) {
    const step = saved.state.steps.find((candidate) => candidate.index === index);
    if (step) uow.emit("step-updated", { planId: saved.state.id, step: stepDTO(saved, step) });
  }
  if (result.plan.status !== loaded.state.status) {
    const ended = isTerminalPlan(result.plan.status);
    uow.emit("plan-updated", {
      planId: loaded.state.id,
      status: result.plan.status,
      endedAt: ended ? new Date(now).toISOString() : null,
    });
  }
  return { plan: saved, ignored: null };
}

/**
 * A step that failed for good and was then retried (by the commander or a member)
 * and succeeded: the chat still shows its failure and the decision about it, so it
 * says that the retry worked.
 */
async function announceRecoveries(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { before: LoadedPlan; after: LoadedPlan },
): Promise<void> {
  for (const step of input.after.state.steps) {
    if (!recoveredAfterRetry(step)) continue;
    const previous = input.before.state.steps.find((candidate) => candidate.index === step.index);
    if (previous?.status === "done") continue;
    insertMessage(context, uow, {
      conversationId: input.after.conversationId,
      author: { kind: "agent", agent: await context.agents.commanderFor(tx, input.after.conversationId) },
      kind: "outcome",
      ...notices.stepRecovered(step),
      planId: input.after.state.id,
      stepId: input.after.stepIds.get(step.index) ?? null,
    });
  }
}

export function stepDTO(plan: LoadedPlan, step: StepState): StepDTO {
  return stepStateDTO(step, plan.stepIds.get(step.index)!);
}

/**
 * The hand-off message the step's latest run by `agentId` was started from, if any (a
 * step that shared a twin's run never had its own); an automatic retry reuses it. Read
 * through the step's runs, which are indexed by step, rather than the messages, which
 * are not.
 */
async function earlierHandOff(tx: Tx, input: { stepId: string; agentId: string }): Promise<string | null> {
  const runs = await tx.run.findMany({
    where: { stepId: input.stepId, agentId: input.agentId, kind: "step", triggerMessageId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { triggerMessageId: true },
    take: 1,
  });
  return runs[0]?.triggerMessageId ?? null;
}

async function applyCommand(context: ExecutorContext, tx: Tx, uow: UnitOfWork, plan: LoadedPlan, command: PlanCommand): Promise<void> {
  const planId = plan.state.id;
  const request = { text: plan.state.request, messageId: plan.requestMessageId };
  const stepOf = (index: number) => {
    const step = plan.state.steps.find((candidate) => candidate.index === index)!;
    return { step, ref: { planId, stepId: plan.stepIds.get(index)!, stepIndex: index, stepTitle: step.title } };
  };
  switch (command.type) {
    case "dispatch": {
      const { step, ref } = stepOf(command.stepIndex);
      const chooseModel = (agent: Agent) => stepRunModel(tx, uow, { planId, step, attempt: command.attempt, runId: command.runId, agent });
      uow.log({
        planId,
        stepIndex: command.stepIndex,
        runId: command.runId,
        phase: "dispatch",
        message: `attempt ${command.attempt} sent to ${command.assignee === "commander" ? "the commander" : `@${command.assignee}`}${command.automaticRetry ? " (a quiet retry)" : ""}`,
        data: { renderedInput: command.renderedInput },
      });
      const commander = await context.agents.commanderFor(tx, plan.conversationId);
      if (command.assignee === COMMANDER_ASSIGNEE) {
        // A private wake-up: the commander's answer becomes visible, the nudge does not.
        await createRun(context, tx, uow, {
          id: command.runId,
          conversationId: plan.conversationId,
          ...(await chooseModel(commander)),
          kind: "commander-step",
          input: command.renderedInput,
          request,
          plan: ref,
          attempt: command.attempt,
        });
        return;
      }
      const agent = await context.agents.byHandle(tx, command.assignee);
      if (!agent) throw new Error(`step ${command.stepIndex}: agent @${command.assignee} no longer exists`);
      // an automatic retry goes out under the hand-off already in the conversation
      const posted = command.automaticRetry ? await earlierHandOff(tx, { stepId: ref.stepId, agentId: agent.id }) : null;
      const triggerMessageId =
        posted ??
        insertMessage(context, uow, {
          conversationId: plan.conversationId,
          author: { kind: "agent", agent: commander },
          kind: "dispatch",
          body: `@${agent.handle} ${command.renderedInput}`,
          mentions: [{ agentId: agent.id, handle: agent.handle }],
          planId,
          stepId: ref.stepId,
          runId: command.runId,
        }).id;
      await createRun(context, tx, uow, {
        id: command.runId,
        conversationId: plan.conversationId,
        ...(await chooseModel(agent)),
        kind: "step",
        input: command.renderedInput,
        request,
        plan: ref,
        attempt: command.attempt,
        triggerMessageId,
      });
      return;
    }
    case "open-form": {
      const { step, ref } = stepOf(command.stepIndex);
      await openForm(context, tx, uow, {
        conversationId: plan.conversationId,
        planId,
        stepId: ref.stepId,
        stepIndex: command.stepIndex,
        runId: null,
        body: command.renderedInput,
        spec: {
          title: step.title,
          fields: [{ name: "answer", label: step.title, type: "textarea", required: true }],
        },
      });
      return;
    }
    case "resume": {
      const { step, ref } = stepOf(command.stepIndex);
      const isCommander = step.assignee === COMMANDER_ASSIGNEE;
      const agent = isCommander
        ? await context.agents.commanderFor(tx, plan.conversationId)
        : await context.agents.byHandle(tx, step.assignee);
      if (!agent) throw new Error(`step ${command.stepIndex}: agent @${step.assignee} no longer exists`);
      await createRun(context, tx, uow, {
        id: command.runId,
        conversationId: plan.conversationId,
        // the session continues on the model the step's effort chose
        ...(await stepRunModel(tx, uow, { planId, step, attempt: command.attempt, runId: command.runId, agent })),
        kind: isCommander ? "commander-step" : "step",
        input: step.renderedInput ?? step.input,
        request,
        plan: ref,
        attempt: command.attempt,
        resume: command.previousRunId
          ? { previousRunId: command.previousRunId, answer: command.answer, secrets: command.secrets }
          : undefined,
      });
      return;
    }
    case "ask-commander": {
      const { step, ref } = stepOf(command.stepIndex);
      const commander = await context.agents.commanderFor(tx, plan.conversationId);
      await createRun(context, tx, uow, {
        id: randomUUID(),
        conversationId: plan.conversationId,
        agent: commander,
        kind: "decision",
        // the reason can quote model or tool output: it reaches the commander only fenced,
        // in the failed-step section of its prompt (agents/prompt.ts), never bare here
        input: `Step ${command.stepIndex} (${step.title}, @${step.assignee}) failed (the reason is in the failed-step section). Decide what to do.`,
        request,
        plan: ref,
        failedStep: {
          index: step.index,
          title: step.title,
          assignee: step.assignee,
          input: step.renderedInput ?? step.input,
          failureReason: command.failureReason,
        },
      });
      return;
    }
    case "schedule-tick":
      uow.ticks.push({ conversationId: plan.conversationId, planId, at: command.at });
      return;
    case "hedge":
      await startHedgeRun(context, tx, uow, { plan, command });
      return;
    case "cancel-run": {
      // Runs are cancelled only in transactions after the one that created them,
      // so the batched update always finds the row (see write-batch.ts).
      const endedAt = new Date(context.clock.now());
      uow.batch.add(sqlWrites.cancelRun({ id: command.runId, endedAt }));
      uow.runsToCancel.push(command.runId);
      const lostHedge = command.reason === "lost-hedge";
      const stepIndex = await announceCancelledRun(tx, uow, command.runId, endedAt, lostHedge ? LOST_HEDGE : undefined);
      if (lostHedge) noteHedgeLoser(uow, { planId, runId: command.runId, stepIndex });
      return;
    }
    case "plan-ended": {
      uow.log({ planId, stepIndex: null, phase: "plan-ended", message: `plan ${command.status}` });
      // a decision nobody needs any more (the plan was stopped, or another step's failure
      // ended it, while the commander weighed a failed step) stops with the plan instead of
      // speaking after it. Decision runs are no step's live run, so the core's cancel-run
      // commands never name them. Read only for a plan stopped or failed: the read makes
      // the unit need its transaction, and a plan that completes (or ends partial) while a
      // decision runs is rare, and its decision is then said to be "not applied".
      const deciding =
        command.status === "cancelled" || command.status === "failed"
          ? await tx.run.findMany({ where: { planId, kind: "decision", status: { in: ["queued", "running"] } }, select: { id: true } })
          : [];
      for (const { id } of deciding) {
        const endedAt = new Date(context.clock.now());
        uow.batch.add(sqlWrites.cancelRun({ id, endedAt }));
        uow.runsToCancel.push(id);
        await announceCancelledRun(tx, uow, id, endedAt, "the plan ended before the commander decided");
      }
      // the commander always closes a plan: what it delivered, or what is missing and why
      insertMessage(context, uow, {
        conversationId: plan.conversationId,
        author: { kind: "agent", agent: await context.agents.commanderFor(tx, plan.conversationId) },
        kind: "outcome",
        ...closingMessage({ title: plan.title, report: outcomeReport(plan.state) }),
        planId,
      });
      // a question nobody needs answered any more must not stay answerable
      const open = await openForms(tx, { planId, status: "open" });
      for (const form of open) closeForm(uow, form, [...plan.stepIds].find(([, id]) => id === form.stepId)?.[0] ?? null);
      return;
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled plan command ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * A cancelled run's final state goes to the conversation like any other run's end
 * (`why`, when there is more to say than "cancelled"). Resolves to its step's index.
 */
export async function announceCancelledRun(tx: Tx, uow: UnitOfWork, runId: string, endedAt: Date, why?: string): Promise<number | null> {
  const run = await tx.run.findUnique({
    where: { id: runId },
    include: { agent: { select: { handle: true } }, step: { select: { index: true } } },
  });
  if (!run || (run.status !== "queued" && run.status !== "running")) return run?.step?.index ?? null;
  const dto = toRunDTO(run, { agentHandle: run.agent?.handle ?? null, stepIndex: run.step?.index ?? null });
  uow.emit("run-updated", {
    run: { ...dto, status: "cancelled", endedAt: endedAt.toISOString(), ...(why ? { error: `cancelled: ${why}` } : {}) },
  });
  return run.step?.index ?? null;
}
