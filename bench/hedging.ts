/**
 * The hedging section of `npm run bench` (issue 45): the same random DAGs run on a fake
 * model whose latency has a long tail (lognormal around MEDIAN_MS, and a share of the
 * calls, TAIL_SHARES, TAIL_FACTOR times slower), first without hedging, then with every
 * agent given an alternate model (the same fake, drawing its own latency). Printed: the makespan
 * (median over the DAGs), the p95 of step times, and the extra cost — what the hedged
 * runs billed over the unhedged ones, a cancelled loser counting what it spent until
 * it was stopped. The first pass is also the history the second one's p95 is read from.
 */
import { percentile } from "../server/executor/hedging.ts";
import { createExecutorFixture, type ExecutorFixture } from "../server/executor/testing/executor-fixture.ts";
import { ok, sleep, type Script } from "../server/executor/testing/scripted-runner.ts";
import type { Database } from "../server/db/database.ts";
import { seededDag, toPlan, xorshift, type TimedStep } from "./dags.ts";

const MEDIAN_MS = 60;
const SIGMA = 0.3;
/**
 * the shares of slow calls the section runs with: at 5% the p95 of fifty runs often is
 * itself a slow run, so hedging starts late; at 2% it sits in the body of the curve
 */
export const TAIL_SHARES = [0.05, 0.02];
const TAIL_FACTOR = 10;
const DAG_SEEDS = [11, 12, 13, 14, 15, 16];
const DAG_SIZE = 16;
const ALTERNATE = "bench-alternate";
/** what a call bills: its prompt up front, then output as it goes (so a stopped loser pays for its time) */
const PROMPT_TOKENS = 500;
const TOKENS_PER_MS = 2;
const COST_PER_TOKEN = 0.000_002;

/** A 32-bit FNV-1a hash: the seed of a call's latency. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return value >>> 0;
}

/**
 * A fake model with a long tail. A call's latency is drawn from a generator seeded by
 * its input and model, so both passes see the same latency for the same step on the
 * primary model (the comparison is paired), and a twin on the alternate draws its own.
 */
function tailScript(tailShare: number): Script {
  const latency = (key: string) => {
    const random = xorshift(hash(key));
    // Box–Muller: a standard normal from two uniforms
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const base = MEDIAN_MS * Math.exp(SIGMA * normal);
    return Math.round(random() < tailShare ? base * TAIL_FACTOR : base);
  };
  return async (request) => {
    const started = performance.now();
    await sleep(latency(`${request.agent.model}\n${request.input}`), request.signal);
    const tokens = PROMPT_TOKENS + Math.round((performance.now() - started) * TOKENS_PER_MS);
    return ok(`item ${request.step?.stepIndex ?? 0} done`, {
      usage: { tokensIn: PROMPT_TOKENS, tokensOut: tokens - PROMPT_TOKENS, cost: tokens * COST_PER_TOKEN },
    });
  };
}

interface PassFigures {
  makespans: number[];
  stepTimes: number[];
  tokens: number;
  cost: number;
  hedged: number;
}

/** `tag`: what the steps' inputs end with, the same in both measured passes (the latencies are the input's) */
async function runPass(fixture: ExecutorFixture, dags: TimedStep[][], name: string, tag: string): Promise<PassFigures> {
  const figures: PassFigures = { makespans: [], stepTimes: [], tokens: 0, cost: 0, hedged: 0 };
  for (const [i, dag] of dags.entries()) {
    const started = Date.now();
    // each DAG's inputs name it, so its steps draw latencies of their own
    const raw = toPlan(`${name} ${i + 1}`, dag, 1000);
    raw.steps = raw.steps.map((step) => ({ ...step, input: `${step.input} of ${tag} ${i + 1}` }));
    const plan = await fixture.executor.submitPlan({ conversationId: fixture.conversationId, raw });
    const status = await fixture.waitForPlan(plan.id, ["completed", "partial", "failed", "cancelled"], 120_000);
    if (status !== "completed") throw new Error(`hedging bench: ${name} ${i + 1} ended ${status}`);
    const stored = await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: plan.id }, include: { steps: true } });
    figures.makespans.push(stored.endedAt!.getTime() - started);
    for (const step of stored.steps) {
      if (step.startedAt && step.endedAt) figures.stepTimes.push(step.endedAt.getTime() - step.startedAt.getTime());
      if (step.hedgeModel) figures.hedged += 1;
    }
  }
  // a loser's spending is stored once it has stopped, after its plan ended
  await new Promise((resolve) => setTimeout(resolve, 3 * MEDIAN_MS * TAIL_FACTOR));
  await fixture.executor.idle();
  const billed = await fixture.db.prisma.run.aggregate({
    where: { conversationId: fixture.conversationId, plan: { title: { startsWith: name } } },
    _sum: { tokensIn: true, tokensOut: true, cost: true },
  });
  figures.tokens = (billed._sum.tokensIn ?? 0) + (billed._sum.tokensOut ?? 0);
  figures.cost = billed._sum.cost ?? 0;
  return figures;
}

const median = (values: number[]) => percentile(values, 0.5) ?? 0;

/** the window executor/hedging.ts reads an agent's p95 from */
const WINDOW_RUNS = 50;

/** Each sub-agent's p95 over its last runs, as the hedging pass will start from. */
async function hedgeThresholds(db: Database): Promise<string> {
  const agents = await db.prisma.agent.findMany({ where: { role: "sub_agent" }, orderBy: { handle: "asc" } });
  const parts: string[] = [];
  for (const agent of agents) {
    const runs = await db.prisma.run.findMany({
      where: { agentId: agent.id, status: "succeeded", model: agent.model, stepId: { not: null } },
      orderBy: { endedAt: "desc" },
      take: WINDOW_RUNS,
      select: { startedAt: true, endedAt: true },
    });
    const durations = runs.flatMap((run) => (run.startedAt && run.endedAt ? [run.endedAt.getTime() - run.startedAt.getTime()] : []));
    parts.push(`@${agent.handle} ${percentile(durations, 0.95)?.toFixed(0) ?? "—"} ms`);
  }
  return parts.join(", ");
}

/** Runs both passes on `db` (a fresh database: the p95 is read from its history) and returns the printed lines. */
export async function benchHedging(label: string, db: Database, tailShare: number): Promise<string[]> {
  const dags = DAG_SEEDS.map((seed) => seededDag(xorshift(seed), DAG_SIZE, () => 0));
  const warmUp = [seededDag(xorshift(1), 3 * 22, () => 0).map((step) => ({ ...step, waitFor: [] }))];
  // parallelism unbounded, as for the other makespan figures: what is measured is the tail, not a pool
  await db.prisma.agent.updateMany({ data: { concurrency: 1000 } });
  const plain = await createExecutorFixture({ db, script: tailScript(tailShare), config: { hedging: false } });
  let without: PassFigures;
  try {
    // enough history for every agent's p95 (20 samples each), then the measured pass
    await runPass(plain, warmUp, "hedging warm-up", "warm-up");
    without = await runPass(plain, dags, "hedging off", "DAG");
  } finally {
    await plain.close();
  }
  await db.prisma.agent.updateMany({ where: { role: "sub_agent" }, data: { hedgeModel: ALTERNATE } });
  const thresholds = await hedgeThresholds(db);
  const hedging = await createExecutorFixture({ db, script: tailScript(tailShare), config: { hedging: true } });
  let withHedging: PassFigures;
  try {
    withHedging = await runPass(hedging, dags, "hedging on", "DAG");
  } finally {
    await hedging.close();
  }
  const line = (name: string, figures: PassFigures) =>
    `${label.padEnd(10)} hedging    ${name.padEnd(12)} makespan ${median(figures.makespans).toFixed(0).padStart(5)} ms (median of ${dags.length} DAGs), ` +
    `step p95 ${(percentile(figures.stepTimes, 0.95) ?? 0).toFixed(0).padStart(4)} ms, ` +
    `${figures.tokens.toLocaleString("en")} tokens, cost ${figures.cost.toFixed(4)}, ${figures.hedged} steps hedged`;
  const extra = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)}%`;
  return [
    `${label.padEnd(10)} hedging    fake model: lognormal ${MEDIAN_MS} ms (σ ${SIGMA}), ${tailShare * 100}% of calls ${TAIL_FACTOR}× slower; ${dags.length} random ${DAG_SIZE}-step DAGs`,
    `${label.padEnd(10)} hedging    hedged after (p95 of each agent's last ${WINDOW_RUNS} runs): ${thresholds}`,
    line("without", without),
    line("with", withHedging),
    `${label.padEnd(10)} hedging    makespan ${extra(median(withHedging.makespans), median(without.makespans))}, ` +
      `step p95 ${extra(percentile(withHedging.stepTimes, 0.95) ?? 0, percentile(without.stepTimes, 0.95) ?? 1)}, ` +
      `extra tokens ${extra(withHedging.tokens, without.tokens)}, extra cost ${extra(withHedging.cost, without.cost)}`,
  ];
}
