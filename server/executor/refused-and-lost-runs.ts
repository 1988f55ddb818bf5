/**
 * The ends of a run other than recording its agent's result: a result the database
 * refused (the run ends failed instead) and a run lost with its process (declared lost
 * under the lock; what that means for its step is the core's, core/run-outcome.ts).
 * RunWorker (run-worker.ts) calls these; each writes under the conversation's lock.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { LOST_RUN_ERROR, lostRunVerdict } from "../core/run-outcome.ts";
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
 * Declares a running run lost (its process died, or this one handed it back at a stop)
 * and tells its plan, or runs it again, as the core's verdict says. `liveHere`: whether
 * the run is still live on this process, which is then never declared lost.
 */
export function recordLostRun(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { conversationId: string; runId: string; reason?: string; liveHere: (runId: string) => boolean },
): Promise<void> {
  return lock.inConversation(input.conversationId, async (tx, uow) => {
    const run = await tx.run.findUnique({ where: { id: input.runId }, include: { step: true, agent: true } });
    // a queued run has no owner to lose: it waits to be claimed
    if (!run || run.status !== "running") return;
    const now = new Date(context.clock.now());
    // Re-checked under the lock: only a lease that is really gone is taken over.
    if (run.leaseOwner === context.instanceId && input.liveHere(run.id)) return;
    await tx.run.update({
      where: { id: run.id },
      data: { status: "lost", endedAt: now, error: input.reason ?? LOST_RUN_ERROR, leaseOwner: null },
    });
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
      case "redispatch": {
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
      }
      case "none":
        return;
      default:
        return verdict satisfies never;
    }
  });
}
