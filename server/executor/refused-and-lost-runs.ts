/**
 * The ends of a run other than recording its agent's result as it came: a result the
 * database could not take for a while (tried again), one it refused (the run ends failed
 * instead) and a run lost with its process (declared lost under the lock; what that
 * means for its step is the core's, core/run-outcome.ts).
 * RunWorker (run-worker.ts) calls these; each writes under the conversation's lock.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { LOST_DECISION_REASON, LOST_RUN_ERROR, lostRunVerdict } from "../core/run-outcome.ts";
import { runKindOf } from "../core/types.ts";
import { truncateText } from "../core/text.ts";
import { databaseErrorInfo, isRefusedWrite } from "../db/database-errors.ts";
import type { ExecutorContext } from "./context.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import { reconcilePlan } from "./plan-effects.ts";
import { finishRun } from "./run-lifecycle.ts";
import { runContextOf, storedRequest } from "./run-queue.ts";
import { createRun, type RunLaunch } from "./run-records.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { UnitPlan } from "./units.ts";

type Tx = Prisma.TransactionClient;

/** Work under a conversation's lock (Executor.inConversation). */
export interface ConversationLock {
  inConversation<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T>;
}

/** Waits between tries to store a run's result while the database cannot take it. */
const RESULT_RETRY_DELAYS_MS = [50, 100, 200, 400, 800, 1_600, 2_000];

/**
 * Stores a run's result (`record`, the unit that does it), trying again while the error
 * may pass — a connection that went, a failover, a conflict the units did not settle —
 * for up to half a lease: the run stays live on this process meanwhile and its lease is
 * renewed, so nobody takes it over and its answer is not thrown away. A result the
 * database refuses ends the run failed (recordRefusedResult). Past half a lease, or when
 * this process stops, the error is thrown and the lease sweep takes the run over.
 */
export async function storeRunResult(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { launch: RunLaunch; record: () => Promise<void>; stopped: () => boolean },
): Promise<{ stored: "as-reported" } | { stored: "failed-instead"; error: string }> {
  const deadline = performance.now() + context.config.leaseMs / 2;
  for (let attempt = 0; ; attempt++) {
    try {
      await input.record();
      if (attempt > 0)
        context.logger.info("[runs] stored a run's result after trying again", { runId: input.launch.request.runId, tries: attempt + 1 });
      return { stored: "as-reported" };
    } catch (error) {
      if (isRefusedWrite(error))
        return { stored: "failed-instead", error: await recordRefusedResult(context, lock, { launch: input.launch, error }) };
      const delayMs = RESULT_RETRY_DELAYS_MS[Math.min(attempt, RESULT_RETRY_DELAYS_MS.length - 1)];
      if (input.stopped() || performance.now() + delayMs > deadline) throw error;
      // said once a run, not at every try: in an outage every live run is trying at once
      if (attempt === 0)
        context.logger.warn("[runs] could not store a run's result; trying again", {
          runId: input.launch.request.runId,
          attempt: attempt + 1,
          sqlState: databaseErrorInfo(error)?.sqlState,
          error: error instanceof Error ? error.message : String(error),
        });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/**
 * The database refused the run's result (bad data, a limit): trying again would fail
 * the same way, and a run left `running` holds its slot for good and is run again
 * after a restart. So the run ends failed, with the reason, in a second, minimal
 * write (no output, no log lines, no usage) that tells its plan like any failure; and
 * should even that be refused, the run row alone is marked failed. Any other error
 * (the connection went) is rethrown: the lease sweep takes the run over.
 * Resolves to the reason recorded.
 */
export async function recordRefusedResult(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { launch: RunLaunch; error: unknown },
): Promise<string> {
  const { launch, error } = input;
  const info = databaseErrorInfo(error);
  if (!info || !isRefusedWrite(error)) throw error;
  const { runId, conversationId } = launch.request;
  const reason = truncateText(
    `the run's result could not be stored: the database refused it (SQLSTATE ${info.sqlState}: ${info.message})`,
    500,
  );
  const failed: AgentRunResult = { kind: "failed", transient: false, reason, usage: { tokensIn: 0, tokensOut: 0, cost: 0 } };
  try {
    await lock.inConversation(
      conversationId,
      (tx, uow) => finishRun(context, tx, uow, { launch, result: failed, logs: [] }),
      launch.planId ? { planId: launch.planId, runId } : undefined,
    );
  } catch (second) {
    if (!isRefusedWrite(second)) throw second;
    await context.prisma.run.updateMany({
      where: { id: runId, status: "running" },
      data: { status: "failed", endedAt: new Date(context.clock.now()), error: reason, leaseExpiresAt: null },
    });
  }
  return reason;
}

/**
 * Declares lost the running runs `runIds` of one conversation (their process died, or
 * this one handed them back at a stop) and tells each one's plan, or runs it again, as
 * the core's verdict says: all in ONE unit, so a dead process's many runs in a
 * conversation wait for its lock once, not once each. `liveHere`: whether a run is
 * still live on this process, which is then never declared lost. Resolves to the ids
 * declared lost (a run already ended, or live here, is left alone).
 */
export function recordLostRuns(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { conversationId: string; runIds: string[]; reason?: string; liveHere: (runId: string) => boolean },
): Promise<string[]> {
  if (input.runIds.length === 0) return Promise.resolve([]);
  return lock.inConversation(input.conversationId, async (tx, uow) => {
    const running = await tx.run.findMany({
      // a queued run has no owner to lose: it waits to be claimed
      where: { id: { in: input.runIds }, conversationId: input.conversationId, status: "running" },
      include: { step: true, agent: true },
      orderBy: { createdAt: "asc" },
    });
    // Re-checked under the lock: only a lease that is really gone is taken over.
    const lost = running.filter((run) => !(run.leaseOwner === context.instanceId && input.liveHere(run.id)));
    if (lost.length === 0) return [];
    await tx.run.updateMany({
      where: { id: { in: lost.map((run) => run.id) } },
      data: { status: "lost", endedAt: new Date(context.clock.now()), error: input.reason ?? LOST_RUN_ERROR, leaseOwner: null },
    });
    // one after another: a plan with several lost runs reads this unit's own copy of it
    for (const run of lost) await actOnLostRun(context, tx, uow, run);
    return lost.map((run) => run.id);
  });
}

/**
 * recordLostRuns, and should that fail with several runs, each in a unit of its own: one
 * run whose write fails holds back none of the others (one left `running` is tried again
 * by the next pass that finds it). Resolves to the ids declared lost.
 */
export async function recordLostRunsEachIfNeeded(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { conversationId: string; runIds: string[]; reason?: string; liveHere: (runId: string) => boolean },
): Promise<string[]> {
  try {
    return await recordLostRuns(context, lock, input);
  } catch (error) {
    if (input.runIds.length <= 1) throw error;
    context.logger.warn("[lost-runs] could not declare a conversation's runs lost at once; one at a time", error);
    const lost: string[] = [];
    for (const runId of input.runIds) {
      await recordLostRuns(context, lock, { ...input, runIds: [runId] }).then(
        (declared) => lost.push(...declared),
        (failed: unknown) => context.logger.warn("[lost-runs] could not declare a run lost", { runId, error: failed }),
      );
    }
    return lost;
  }
}

/** Run ids grouped by their conversation, in the order given. */
export function runIdsByConversation(runs: { id: string; conversationId: string }[]): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const run of runs) grouped.set(run.conversationId, [...(grouped.get(run.conversationId) ?? []), run.id]);
  return grouped;
}

type LostRunRow = Prisma.RunGetPayload<{ include: { step: true; agent: true } }>;

/** What a run's loss means for its step, as the core's verdict says, written in the unit. */
async function actOnLostRun(context: ExecutorContext, tx: Tx, uow: UnitOfWork, run: LostRunRow): Promise<void> {
  const kind = runKindOf(run);
  const verdict = lostRunVerdict({
    kind,
    stepIndex: run.planId && run.step ? run.step.index : null,
    attempt: run.attempt,
    hasAgent: run.agent !== null,
  });
  switch (verdict.kind) {
    case "tell-plan":
      await reconcilePlan(context, tx, uow, {
        planId: run.planId!,
        event: { type: "run-lost", stepIndex: verdict.stepIndex, runId: run.id },
      });
      return;
    case "redispatch":
      await createRun(context, tx, uow, {
        id: randomUUID(),
        conversationId: run.conversationId,
        agent: run.agent!,
        kind,
        input: run.input,
        request: await storedRequest(tx, run),
        ...runContextOf(run),
        attempt: verdict.attempt,
        triggerMessageId: run.triggerMessageId,
      });
      return;
    case "abort-decision":
      // the step waits for a decision no run will give (the escalated one, or the one started again, was lost too)
      await reconcilePlan(context, tx, uow, {
        planId: run.planId!,
        event: { type: "commander-decision", stepIndex: verdict.stepIndex, decision: { kind: "abort", reason: LOST_DECISION_REASON } },
      });
      return;
    case "none":
      return;
    default:
      return verdict satisfies never;
  }
}
