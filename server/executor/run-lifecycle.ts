/**
 * How a finished run becomes facts: under the conversation's lock, record the run,
 * post what the agent said, and tell the plan. The runtime only reports; this module
 * decides what a report means (DESIGN rule 1).
 */
import { z } from "zod";
import type { Prisma } from "../generated/prisma/client.ts";
import { validatePlan, validateAppendedSteps } from "../core/validate-plan.ts";
import { PlanValidationError } from "../core/errors.ts";
import { formSpecSchema } from "../core/form-schema.ts";
import type { CommanderDecision, PlanEvent, RunOutcome, StepState } from "../core/types.ts";
import { insertPlan, loadPlan } from "../adapters/prisma/plan-repository.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import { toPlanDTO } from "../adapters/prisma/serializers.ts";
import type { AgentRunResult } from "./ports.ts";
import type { ExecutorContext } from "./context.ts";
import { openForm, planContext, reconcilePlan, type PlanChange } from "./plan-effects.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { runDTO, type RunLaunch } from "./run-records.ts";
import { insertMessage } from "./messages.ts";
import { retryChatReply } from "./chat-retry.ts";

type Tx = Prisma.TransactionClient;

export type InConversation = <T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>) => Promise<T>;

export interface RunLogEntry {
  phase: string;
  message: string;
  data?: unknown;
}

/** Model output is stored and shown, so it is bounded. */
export const MAX_TEXT_CHARS = 100_000;
export const MAX_SUMMARY_CHARS = 8_000;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}\n\n…(truncated)` : text);

const decisionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retry"), input: z.string().max(20_000).optional(), assignee: z.string().optional() }),
  z.object({ kind: z.literal("skip"), reason: z.string().max(2_000).optional() }),
  z.object({ kind: z.literal("abort"), reason: z.string().max(2_000).optional() }),
  z.object({ kind: z.literal("append"), steps: z.array(z.unknown()).min(1) }),
]);

/** Records a finished run and lets its plan (if any) react, all in one locked transaction. */
export async function finishRun(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { launch: RunLaunch; result: AgentRunResult; logs: RunLogEntry[] },
): Promise<void> {
  const { launch, result } = input;
  const runId = launch.request.runId;
  const conversationId = launch.request.conversationId;
  const now = context.stamp();
  const status = result.kind === "ok" ? "succeeded" : result.kind === "blocked" ? "blocked" : "failed";
  const error = result.kind === "failed" ? result.reason : null;
  // Only a run that is still running may be recorded: cancelled, lost to another
  // process or already recorded means the facts are settled. For a plan's run the
  // check rides on the read the reconcile needs anyway.
  const read = launch.planId ? await planContext(tx, uow, { planId: launch.planId, runId }) : null;
  const runStatus = read ? read.runStatus : (await tx.run.findUnique({ where: { id: runId }, select: { status: true } }))?.status;
  if (runStatus !== "running") return;
  uow.batch.add(
    // leaseOwner stays: which process ran it is worth keeping
    sqlWrites.finishRun({ id: runId, status, endedAt: now, error, ...result.usage }),
  );
  uow.emit("run-updated", { run: runDTO(launch, { status, endedAt: now, error, usage: result.usage }) });
  if (launch.planId) {
    for (const entry of input.logs) {
      uow.log({
        planId: launch.planId,
        stepIndex: launch.stepIndex,
        runId,
        phase: entry.phase,
        message: entry.message.slice(0, 4000),
        data: entry.data,
      });
    }
  }

  const say = (body: string, kind: "result" | "decision" | "plan" | "error" | "text", planId?: string) =>
    body.trim()
      ? insertMessage(context, uow, {
          conversationId,
          author: { kind: "agent", agent: launch.agent },
          kind,
          body,
          planId: planId ?? launch.planId,
          stepId: launch.stepId,
          runId,
        })
      : null;
  const tellPlan = async (event: PlanEvent, beforeCommands?: (change: PlanChange) => void) => {
    if (launch.planId) await reconcilePlan(context, tx, uow, { planId: launch.planId, event, read: read ?? undefined, beforeCommands });
  };
  // every outcome carries the run's usage: the core adds it to the step and checks budgets
  const usage = { tokens: result.usage.tokensIn + result.usage.tokensOut, cost: result.usage.cost };
  const report = (outcome: RunOutcome, beforeCommands?: (change: PlanChange) => void) =>
    launch.stepIndex === null
      ? Promise.resolve()
      : tellPlan({ type: "run-finished", stepIndex: launch.stepIndex, runId, outcome: { ...outcome, usage } }, beforeCommands);
  const decide = (decision: CommanderDecision, beforeCommands?: (change: PlanChange) => void) =>
    launch.stepIndex === null
      ? Promise.resolve()
      : tellPlan({ type: "commander-decision", stepIndex: launch.stepIndex, decision }, beforeCommands);

  if (result.kind === "blocked") {
    const form = formSpecSchema.safeParse(result.form);
    if (!form.success) {
      // model output is untrusted: a malformed form is the run's failure, not a crash
      const reason = `the agent asked with an invalid form: ${form.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`;
      say(`**Failed:** ${reason}`, "error");
      return report({ kind: "failed", transient: false, reason });
    }
    if (launch.kind !== "step" && launch.kind !== "mention") {
      // The commander cannot wait on a form here: a real failure of the run.
      const reason = "the commander asked for input it cannot wait for";
      say(`**Failed:** ${reason}`, "error");
      return launch.kind === "decision" ? decide({ kind: "abort", reason }) : report({ kind: "failed", transient: false, reason });
    }
    await openForm(context, tx, uow, {
      conversationId,
      planId: launch.planId,
      stepId: launch.stepId,
      stepIndex: launch.stepIndex,
      runId,
      body: clip(result.text, MAX_TEXT_CHARS) || form.data.title,
      spec: form.data,
      asker: launch.agent,
    });
    return report({ kind: "blocked" });
  }

  if (result.kind === "failed") {
    // a transient failure of the commander's reply is retried, like a step's, before it is news
    if (await retryChatReply(context, tx, uow, { launch, result })) return;
    if (launch.kind === "decision" || launch.stepIndex === null) {
      say(`**Failed:** ${result.reason}`, "error");
      if (launch.kind === "decision") return decide({ kind: "abort", reason: `the commander could not decide: ${result.reason}` });
      return;
    }
    // An attempt that will be retried is not news: it goes to the step's log and its
    // status line. Only a failure that sticks is posted, with the reason the step records.
    return report({ kind: "failed", transient: result.transient, reason: result.reason }, (change) => {
      if (!change.applied) {
        say(`**Failed:** ${result.reason}`, "error");
        return;
      }
      // every step on this run (several when they shared it) that did not go back for a retry
      const stuck = stepsStuckAfter(change, runId);
      if (stuck.length === 0) return;
      say(`**Failed:** ${stuck[0].failureReason ?? result.reason}`, "error");
    });
  }

  if (launch.kind === "decision") {
    const text = clip(result.text, MAX_TEXT_CHARS);
    const decision = await parseDecision(context, tx, launch, result.decision, say);
    // said once the core has ruled on it: a decision that no longer applies must not read as applied
    return decide(decision, (change) => {
      const step = change.after.state.steps.find((candidate) => candidate.index === launch.stepIndex);
      say(
        change.applied ? text || `Decision for step ${launch.stepIndex}: ${decision.kind}.` : notAppliedDecision(text, decision, step),
        "decision",
      );
    });
  }

  if (launch.kind === "chat" && result.plan !== undefined) {
    try {
      const spec = validatePlan({
        raw: result.plan,
        assignees: await conversationHandles(context, tx, conversationId),
        limits: context.config.planLimits,
      });
      const { loaded, row: plan } = await insertPlan(tx, {
        conversationId,
        spec,
        request: launch.request.request.text,
        requestMessageId: launch.triggerMessageId ?? undefined,
      });
      uow.cachePlan(loaded); // the reconcile below starts from it instead of reading it again
      // the planning call is the plan's first cost: its run counts toward the plan's totals
      await tx.run.update({ where: { id: runId }, data: { planId: plan.id } });
      uow.emit("run-updated", { run: runDTO({ ...launch, planId: plan.id }, { status, endedAt: now, error, usage: result.usage }) });
      uow.emit("plan-created", { plan: toPlanDTO(plan) });
      say(clip(result.text, MAX_TEXT_CHARS) || `Plan: **${spec.title}**`, "plan", plan.id);
      await reconcilePlan(context, tx, uow, { planId: plan.id, event: { type: "plan-created" } });
    } catch (error) {
      if (!(error instanceof PlanValidationError)) throw error;
      say(`I could not make a valid plan: ${error.message}`, "error");
    }
    return;
  }

  say(clip(result.text, MAX_TEXT_CHARS), launch.planId ? "result" : "text");
  return report({
    kind: "ok",
    summary: clip(result.summary, MAX_SUMMARY_CHARS),
    files: result.files.slice(0, 100).map((name) => clip(name, 200)),
    untrusted: result.untrusted,
  });
}

/**
 * The steps that were live on `runId` and did not go back to pending for a transient
 * retry in this reconcile: their failure sticks (failed, skipped, or the plan ended).
 */
function stepsStuckAfter(change: PlanChange, runId: string): StepState[] {
  const stuck: StepState[] = [];
  for (const before of change.before.state.steps) {
    if (before.status !== "in_progress" || before.liveRunId !== runId) continue;
    const after = change.after.state.steps.find((step) => step.index === before.index);
    const retried = after?.status === "pending" && after.transientFailures > before.transientFailures;
    if (after && !retried) stuck.push(after);
  }
  return stuck;
}

/** The commander's words, and that they changed nothing: someone acted on the step first. */
function notAppliedDecision(text: string, decision: CommanderDecision, step: StepState | undefined): string {
  const state = step ? `step ${step.index} is already ${step.status.replace("_", " ")}` : "the step no longer exists";
  const said = text || `Decision: ${decision.kind}.`;
  return `${said}\n\n_Not applied: ${state}; someone acted on it before the commander decided._`;
}

/** The commander's decision, checked like any model output; anything invalid aborts. */
async function parseDecision(
  context: ExecutorContext,
  tx: Tx,
  launch: RunLaunch,
  raw: unknown,
  say: (body: string, kind: "error") => unknown,
): Promise<CommanderDecision> {
  const parsed = decisionSchema.safeParse(raw);
  if (!parsed.success) return { kind: "abort", reason: "the commander gave no valid decision" };
  const assignees = await conversationHandles(context, tx, launch.request.conversationId);
  const decision = parsed.data;
  if (decision.kind === "retry" && decision.assignee !== undefined) {
    const handle = decision.assignee.replace(/^@/, "");
    if (handle !== "commander" && handle !== "user" && !assignees.has(handle)) {
      say(`The retry named @${handle}, who is not in this conversation.`, "error");
      return { kind: "abort", reason: `retry named an unknown assignee @${handle}` };
    }
    return { ...decision, assignee: handle };
  }
  if (decision.kind !== "append") return decision;
  const plan = (await loadPlan(tx, launch.planId!))?.state;
  if (!plan) throw new Error(`plan ${launch.planId} vanished`);
  try {
    const steps = validateAppendedSteps({ existing: plan, raw: decision.steps, assignees, limits: context.config.planLimits });
    return { kind: "append", steps };
  } catch (error) {
    const reason = error instanceof PlanValidationError ? error.message : String(error);
    say(`The appended steps were rejected: ${reason}`, "error");
    return { kind: "abort", reason: `appended steps were invalid: ${reason}` };
  }
}

/** Handles of the sub-agents in a conversation: who a plan may assign. */
export async function conversationHandles(context: ExecutorContext, tx: Tx, conversationId: string): Promise<Set<string>> {
  const roster = await context.agents.roster(tx, conversationId);
  return new Set(roster.filter((agent) => agent.role === "sub_agent").map((agent) => agent.handle));
}
