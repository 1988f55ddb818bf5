/** Admin read model: tokens and cost by model, by agent and by day, over a recent window. */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../auth/actor.ts";
import type { Usage, UsageRow } from "../protocol/rest/admin-views.ts";

function add(map: Map<string, UsageRow>, key: string, run: { tokensIn: number; tokensOut: number; cost: number }) {
  const row = map.get(key) ?? { key, tokensIn: 0, tokensOut: 0, cost: 0, runs: 0 };
  row.tokensIn += run.tokensIn;
  row.tokensOut += run.tokensOut;
  row.cost += run.cost;
  row.runs += 1;
  map.set(key, row);
}

export async function getUsage(prisma: PrismaClient, { actor, days = 30 }: { actor: Actor | null; days?: number }): Promise<Usage> {
  assertAdmin(actor);
  const since = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const runs = await prisma.run.findMany({
    where: { createdAt: { gte: since } },
    select: { model: true, tokensIn: true, tokensOut: true, cost: true, createdAt: true, agent: { select: { handle: true } } },
  });
  const byModel = new Map<string, UsageRow>();
  const byAgent = new Map<string, UsageRow>();
  const byDay = new Map<string, UsageRow>();
  for (const run of runs) {
    add(byModel, run.model, run);
    add(byAgent, run.agent?.handle ?? "(deleted)", run);
    add(byDay, run.createdAt.toISOString().slice(0, 10), run);
  }
  const sorted = (map: Map<string, UsageRow>) => [...map.values()].sort((a, b) => b.tokensIn + b.tokensOut - (a.tokensIn + a.tokensOut));
  return {
    since: since.toISOString(),
    byModel: sorted(byModel),
    byAgent: sorted(byAgent),
    byDay: [...byDay.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    totals: runs.reduce(
      (sum, run) => ({ tokens: sum.tokens + run.tokensIn + run.tokensOut, cost: sum.cost + run.cost, runs: sum.runs + 1 }),
      { tokens: 0, cost: 0, runs: 0 },
    ),
  };
}
