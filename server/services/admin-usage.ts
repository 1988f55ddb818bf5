/**
 * Admin read model: tokens and cost by model, by agent, by why the run was on its model
 * (core/run-model.ts: the agent's own, an effort level, an escalation, a hedge) and by
 * day, over a recent window.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import type { Usage, UsageRow } from "../protocol/rest/admin-views.ts";
import { modelReasonOf } from "../core/run-model.ts";

/** The runs of one (model, reason, agent, day), summed by the database. */
type BilledGroup = Omit<UsageRow, "key"> & { model: string; modelReason: string; handle: string | null; day: string };

function add(map: Map<string, UsageRow>, key: string, group: BilledGroup) {
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
  row.tokensIn += group.tokensIn;
  row.tokensOut += group.tokensOut;
  row.cacheReadTokens += group.cacheReadTokens;
  row.cacheWriteTokens += group.cacheWriteTokens;
  row.cost += group.cost;
  row.runs += group.runs;
  row.estimated ||= group.estimated;
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
  // summed by the database per (model, reason, agent, UTC day): a year of a busy
  // workspace's runs is millions of rows, a few thousand groups. Sums as float8, since a
  // year's tokens overflow an integer and bigint would come back as BigInt. Times are
  // stored as UTC without a zone: the bound is given the same way, whatever the session's.
  const groups = await prisma.$queryRaw<BilledGroup[]>`
    SELECT r."model", r."modelReason", a."handle", to_char(r."createdAt", 'YYYY-MM-DD') AS "day",
      sum(r."tokensIn")::float8 AS "tokensIn", sum(r."tokensOut")::float8 AS "tokensOut",
      sum(r."cacheReadTokens")::float8 AS "cacheReadTokens", sum(r."cacheWriteTokens")::float8 AS "cacheWriteTokens",
      sum(r."cost")::float8 AS "cost", count(*)::integer AS "runs", bool_or(r."usageEstimated") AS "estimated"
    FROM "Run" r LEFT JOIN "Agent" a ON a."id" = r."agentId"
    WHERE r."createdAt" >= ${since.toISOString()}::timestamp
    GROUP BY 1, 2, 3, 4`;
  const byModel = new Map<string, UsageRow>();
  const byAgent = new Map<string, UsageRow>();
  const byReason = new Map<string, UsageRow>();
  const byDay = new Map<string, UsageRow>();
  const all = new Map<string, UsageRow>();
  for (const group of groups) {
    add(all, "all", group);
    add(byModel, group.model, group);
    add(byAgent, group.handle ?? "(deleted)", group);
    add(byReason, modelReasonOf(group.modelReason), group);
    add(byDay, group.day, group);
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
