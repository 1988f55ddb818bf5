/**
 * How a finished run becomes facts: under the conversation's lock, record the run,
 * post what the agent said, and tell the plan. The runtime only reports; the core
 * decides what a report means (core/run-outcome.ts) and this module carries it out.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { PlanValidationError } from "../core/errors.ts";
import { checkDecision, decisionNeedsPlan } from "../core/commander-decision.ts";
import { decisionNotice, runFailureNotice, runVerdict, type RunEffect, type SaidKind } from "../core/run-outcome.ts";
import type { FinishedRunStatus, PlanEvent } from "../core/types.ts";
import { loadPlan } from "../adapters/prisma/plan-repository.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import { planContext, reconcilePlan, type PlanChange } from "./plan-effects.ts";
import { openForm } from "./plan-forms.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { runDTO, type RunLaunch } from "./run-records.ts";
import { insertMessage } from "./messages.ts";
import { conversationHandles, createPlan, recentTwinPlan } from "./plan-creation.ts";
import { retryReply, withReplyHistory } from "./chat-retry.ts";
import { escalateDecision } from "./decision-escalation.ts";
import { toStorableJson, truncateText } from "../core/text.ts";
import { notices, type Notice } from "../core/notices.ts";

type Tx = Prisma.TransactionClient;

export interface RunLogEntry {
  phase: string;
  message: string;
  data?: unknown;
}

/**
 * Records a finished run and lets its plan (if any) react, all in one locked transaction.
 * Resolves to false when the run was no longer running (cancelled, lost, recorded): its
 * end was settled elsewhere and nothing was written.
 */
export async function finishRun(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { launch: RunLaunch; result: AgentRunResult; logs: RunLogEntry[] },
): Promise<boolean> {
  const { launch } = input;
  const runId = launch.request.runId;
  const now = context.stamp();
  // Only a run that is still running may be recorded: cancelled, lost to another
  // process or already recorded means the facts are settled. For a plan's run the
  // check rides on the read the reconcile needs anyway.
  const read = launch.planId ? await planContext(tx, uow, { planId: launch.planId, runId }) : null;
  const runStatus = read ? read.runStatus : (await tx.run.findUnique({ where: { id: runId }, select: { status: true } }))?.status;
  if (runStatus !== "running") return false;
  const result = await withReplyHistory(context, tx, launch, input.result);
  const verdict = runVerdict(
    {
      kind: launch.kind,
      stepIndex: launch.stepIndex,
      inPlan: launch.planId !== null,
      // once per step: a run already on the escalation model does not escalate again
      canEscalate: launch.agent.escalationModel !== null && launch.modelReason !== "escalation",
    },
    result,
  );
  const { status, error } = verdict;
  uow.batch.add(
    // leaseOwner stays: which process ran it is worth keeping
    sqlWrites.finishRun({
      id: runId,
      status,
      endedAt: now,
      error,
      tokensIn: result.usage.tokensIn,
      tokensOut: result.usage.tokensOut,
      cacheReadTokens: result.usage.cacheReadTokens ?? 0,
      cacheWriteTokens: result.usage.cacheWriteTokens ?? 0,
      cost: result.usage.cost,
      usageEstimated: result.usage.estimated === true,
    }),
  );
  uow.emit("run-updated", { run: runDTO(launch, { status, endedAt: now, error, usage: result.usage }) });
  if (launch.planId) {
    for (const entry of input.logs) {
      uow.log({
        planId: launch.planId,
        stepIndex: launch.stepIndex,
        runId,
        phase: entry.phase,
        message: truncateText(entry.message, 4000),
        data: toStorableJson(entry.data),
      });
    }
  }
  const applier: EffectApplier = {
    say: ({ body, notice }, kind, planId) => {
      if (body.trim())
        insertMessage(context, uow, {
          conversationId: launch.request.conversationId,
          author: { kind: "agent", agent: launch.agent },
          kind,
          body,
          notice,
          planId: planId ?? launch.planId,
          stepId: launch.stepId,
          runId,
        });
    },
    tellPlan: async (event, beforeCommands) => {
      if (launch.planId) await reconcilePlan(context, tx, uow, { planId: launch.planId, event, read: read ?? undefined, beforeCommands });
    },
  };
  // a transient failure of a reply (chat, mention) is retried, like a step's, before it is news;
  // a reply or a decision that failed fixably runs once on the escalation model first
  if (result.kind === "failed" && (await retryReply(context, tx, uow, { launch, result }))) return true;
  if (result.kind === "failed" && (await escalateDecision(context, tx, uow, { launch, result }))) return true;
  const recorded = { status, endedAt: now, error };
  for (const effect of verdict.effects) await applyEffect(context, tx, uow, { launch, result, recorded, applier }, effect);
  return true;
}

interface EffectApplier {
  /** `notice`: the body is the server's own words (core/notices.ts) */
  say(words: { body: string; notice?: Notice | null }, kind: SaidKind, planId?: string): void;
  tellPlan(event: PlanEvent, beforeCommands?: (change: PlanChange) => void): Promise<void>;
}

/** Carries out one of the core's effects for a finished run. */
async function applyEffect(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  {
    launch,
    result,
    recorded,
    applier,
  }: {
    launch: RunLaunch;
    result: AgentRunResult;
    recorded: { status: FinishedRunStatus; endedAt: Date; error: string | null };
    applier: EffectApplier;
  },
  effect: RunEffect,
): Promise<void> {
  const runId = launch.request.runId;
  const conversationId = launch.request.conversationId;
  switch (effect.kind) {
    case "say":
      return applier.say(effect, effect.as);
    case "open-form":
      await openForm(context, tx, uow, {
        conversationId,
        planId: launch.planId,
        stepId: launch.stepId,
        stepIndex: launch.stepIndex,
        runId,
        body: effect.body,
        spec: effect.form,
        asker: launch.agent,
      });
      return;
    case "report": {
      // every outcome carries the run's usage: the core adds it to the step and checks budgets
      const usage = { tokens: result.usage.tokensIn + result.usage.tokensOut, cost: result.usage.cost };
      const outcome = { ...effect.outcome, usage };
      const reason = effect.outcome.kind === "failed" ? effect.outcome.reason : "";
      return applier.tellPlan(
        { type: "run-finished", stepIndex: effect.stepIndex, runId, outcome },
        effect.notice === "failure"
          ? (change) => {
              const notice = runFailureNotice({
                applied: change.applied,
                before: change.before.state.steps,
                after: change.after.state.steps,
                runId,
                reason,
              });
              if (notice) applier.say(notice, "error");
            }
          : undefined,
      );
    }
    case "decide":
      return applier.tellPlan({ type: "commander-decision", stepIndex: effect.stepIndex, decision: effect.decision });
    case "rule-decision": {
      const assignees = await conversationHandles(context, tx, conversationId);
      // only an append needs the plan it extends
      const plan = decisionNeedsPlan(effect.raw) && launch.planId ? ((await loadPlan(tx, launch.planId))?.state ?? null) : null;
      if (decisionNeedsPlan(effect.raw) && !plan) throw new Error(`plan ${launch.planId} vanished`);
      const { decision, complaint } = checkDecision({ raw: effect.raw, assignees, plan, limits: context.config.planLimits });
      if (complaint) applier.say(complaint, "error");
      // said once the core has ruled on it: a decision that no longer applies must not read as applied
      return applier.tellPlan({ type: "commander-decision", stepIndex: effect.stepIndex, decision }, (change) => {
        const step = change.after.state.steps.find((candidate) => candidate.index === effect.stepIndex);
        applier.say(
          decisionNotice({ applied: change.applied, text: effect.text, decision, stepIndex: effect.stepIndex, step }),
          "decision",
        );
      });
    }
    case "create-plan":
      try {
        // the same request asked again a moment ago (sent twice, or the commander run again):
        // its plan is still running, so this run joins it instead of starting the work twice
        const twin = await recentTwinPlan(context, tx, { conversationId, request: launch.request.request.text, raw: effect.raw });
        if (twin) {
          applier.say(notices.planAlreadyRunning(twin.title), "plan", twin.id);
          uow.batch.add(sqlWrites.setRunPlan({ id: runId, planId: twin.id }));
          return;
        }
        const { dto } = await createPlan(context, tx, uow, {
          conversationId,
          raw: effect.raw,
          request: launch.request.request.text,
          requestMessageId: launch.triggerMessageId ?? undefined,
          announce: (spec, planId) => applier.say(effect.text ? { body: effect.text } : notices.planAnnounced(spec.title), "plan", planId),
        });
        // the planning call is the plan's first cost: its run counts toward the plan's totals
        uow.batch.add(sqlWrites.setRunPlan({ id: runId, planId: dto.id }));
        uow.emit("run-updated", { run: runDTO({ ...launch, planId: dto.id }, { ...recorded, usage: result.usage }) });
      } catch (error) {
        if (!(error instanceof PlanValidationError)) throw error;
        applier.say(notices.planInvalid(error.message), "error");
      }
      return;
    default:
      return effect satisfies never;
  }
}
