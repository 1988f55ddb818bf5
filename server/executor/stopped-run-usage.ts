/**
 * What a run stopped before its end spent. A run cancelled while its model was working
 * (a Stop, its plan cancelled, a hedge it lost) was billed for what it read and wrote
 * until then. The process that ran it stores that on the run's row once it has stopped —
 * whichever process cancelled it — and tells its plan (`run-usage`), so the bill and the
 * budgets count it.
 */
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import { applyPlanEvent } from "./plan-effects.ts";
import type { ConversationLock } from "./refused-and-lost-runs.ts";
import type { RunLaunch } from "./run-launch.ts";

/**
 * Stores `usage` on the cancelled run's row if nothing was stored there yet (a row
 * with usage was recorded by its own end, or by an earlier call), with `error` when the
 * row should say more than "cancelled"; a plan's step counts it toward its budget.
 */
export async function storeStoppedRunUsage(
  context: ExecutorContext,
  lock: ConversationLock,
  input: { launch: RunLaunch; usage: AgentRunResult["usage"]; error?: string },
): Promise<void> {
  const { launch, usage } = input;
  const tokens = usage.tokensIn + usage.tokensOut;
  const spent = tokens > 0 || usage.cost > 0;
  if (!spent && input.error === undefined) return;
  const { runId, conversationId } = launch.request;
  await lock.inConversation(conversationId, async (tx, uow) => {
    const stored = await tx.run.updateMany({
      where: { id: runId, status: "cancelled", tokensIn: 0, tokensOut: 0, cost: 0 },
      data: {
        tokensIn: usage.tokensIn,
        tokensOut: usage.tokensOut,
        cacheReadTokens: usage.cacheReadTokens ?? 0,
        cacheWriteTokens: usage.cacheWriteTokens ?? 0,
        cost: usage.cost,
        usageEstimated: usage.estimated === true,
        ...(input.error === undefined ? {} : { error: input.error }),
      },
    });
    if (stored.count === 1 && spent && launch.planId !== null && launch.stepIndex !== null) {
      await applyPlanEvent(context, tx, uow, {
        planId: launch.planId,
        event: { type: "run-usage", stepIndex: launch.stepIndex, runId, usage: { tokens, cost: usage.cost } },
      });
    }
  });
}
