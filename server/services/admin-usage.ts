/**
 * Admin read model: tokens and cost by model, by agent, by why the run was on its model
 * (core/run-model.ts: the agent's own, an effort level, an escalation, a hedge) and by
 * day, over a recent window.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import type { Usage, UsageRow } from "../protocol/rest/admin-views.ts";
import { modelReasonOf } from "../core/run-model.ts";

type BilledRun = Pick<UsageRow, "tokensIn" | "tokensOut" | "cacheReadTokens" | "cacheWriteTokens" | "cost"> & { usageEstimated: boolean };

function add(map: Map<string, UsageRow>, key: string, run: BilledRun) {
  const row = map.get(key) ?? {
    key,
    tokensIn: 0,
    tokensOut: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cost: 0,
    runs: 0,
    estimated: false,
  };
  row.tokensIn += run.tokensIn;
  row.tokensOut += run.tokensOut;
  row.cacheReadTokens += run.cacheReadTokens;
  row.cacheWriteTokens += run.cacheWriteTokens;
  row.cost += run.cost;
  row.runs += 1;
  row.estimated ||= run.usageEstimated;
  map.set(key, row);
}

function totalsOf(row: UsageRow | undefined): Usage["totals"] {
  if (!row) return { tokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0, runs: 0, estimated: false };
  const { tokensIn, tokensOut, cacheReadTokens, cacheWriteTokens, cost, runs, estimated } = row;
  return { tokens: tokensIn + tokensOut, cacheReadTokens, cacheWriteTokens, cost, runs, estimated };
}

export async function getUsage(prisma: PrismaClient, { actor, days = 30 }: { actor: Actor | null; days?: number }): Promise<Usage> {
  assertAdmin(actor);
  const since = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const runs = await prisma.run.findMany({
    where: { createdAt: { gte: since } },
    select: {
      model: true,
      modelReason: true,
      tokensIn: true,
      tokensOut: true,
      cacheReadTokens: true,
      cacheWriteTokens: true,
      cost: true,
      usageEstimated: true,
      createdAt: true,
      agent: { select: { handle: true } },
    },
  });
  const byModel = new Map<string, UsageRow>();
  const byAgent = new Map<string, UsageRow>();
  const byReason = new Map<string, UsageRow>();
  const byDay = new Map<string, UsageRow>();
  const all = new Map<string, UsageRow>();
  for (const run of runs) {
    add(all, "all", run);
    add(byModel, run.model, run);
    add(byAgent, run.agent?.handle ?? "(deleted)", run);
    add(byReason, modelReasonOf(run.modelReason), run);
    add(byDay, run.createdAt.toISOString().slice(0, 10), run);
  }
  const sorted = (map: Map<string, UsageRow>) => [...map.values()].sort((a, b) => b.tokensIn + b.tokensOut - (a.tokensIn + a.tokensOut));
  return {
    since: since.toISOString(),
    byModel: sorted(byModel),
    byAgent: sorted(byAgent),
    byReason: sorted(byReason),
    byDay: [...byDay.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    totals: totalsOf(all.get("all")),
  };
}
