import type { RunDTO } from "@/server/protocol/dto.ts";
import type { Snapshot, UsageTotal } from "@/server/protocol/rest/conversations.ts";

export type { UsageTotal };

/** Tokens (in + out) and cost of the runs, optionally only a plan's (its planning call included). */
export function sumUsage(
  runs: Iterable<Pick<RunDTO, "planId" | "tokensIn" | "tokensOut" | "cost" | "usageEstimated">>,
  planId?: string,
): UsageTotal {
  const total: UsageTotal = { tokens: 0, cost: 0, runs: 0, estimated: false };
  for (const run of runs) {
    if (planId !== undefined && run.planId !== planId) continue;
    total.tokens += run.tokensIn + run.tokensOut;
    total.cost += run.cost;
    total.runs += 1;
    total.estimated ||= run.usageEstimated;
  }
  return total;
}

const NONE: UsageTotal = { tokens: 0, cost: 0, runs: 0, estimated: false };

/**
 * What a plan (with `planId`) or the whole conversation has cost so far: the runs that
 * had ended when the snapshot was read, as the server summed them, plus the runs the
 * client holds. No run is in both: the snapshot sends only runs not ended, an ended run
 * never changes again, and events tell only of runs that change.
 */
export function usageOf(
  state: {
    runs: Record<string, Pick<RunDTO, "planId" | "tokensIn" | "tokensOut" | "cost" | "usageEstimated">>;
    endedUsage: Snapshot["endedUsage"];
  },
  planId?: string,
): UsageTotal {
  const ended = planId === undefined ? state.endedUsage.total : (state.endedUsage.byPlan[planId] ?? NONE);
  const held = sumUsage(Object.values(state.runs), planId);
  return {
    tokens: ended.tokens + held.tokens,
    cost: ended.cost + held.cost,
    runs: ended.runs + held.runs,
    estimated: ended.estimated || held.estimated,
  };
}

/**
 * "12.3k tokens · $0.0412", or "≈ 12.3k tokens · $0.0412" when part of it is estimated;
 * `line` words the two figures in the reader's language (conversation.usageLine).
 */
export function formatUsage(
  total: Pick<UsageTotal, "tokens" | "cost" | "estimated">,
  line: (figures: { tokens: string; cost: string }) => string,
): string {
  const tokens =
    total.tokens >= 1_000_000
      ? `${(total.tokens / 1_000_000).toFixed(1)}M`
      : total.tokens >= 1_000
        ? `${(total.tokens / 1_000).toFixed(1)}k`
        : String(total.tokens);
  const cost = total.cost === 0 ? "$0" : total.cost < 0.01 ? `$${total.cost.toFixed(4)}` : `$${total.cost.toFixed(2)}`;
  return `${total.estimated ? "≈ " : ""}${line({ tokens, cost })}`;
}

/** The tooltip's note when a total is partly estimated. */
export const ESTIMATED_NOTE = "estimated in part: a model call was cut mid-stream and reported no usage";
