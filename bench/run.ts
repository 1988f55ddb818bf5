/**
 * `npm run bench`: prints orchestration figures for the embedded database and, when
 * DATABASE_URL points at PostgreSQL, for PostgreSQL too (a scratch database on that
 * server, dropped afterwards: see bench-database.ts). Figures, not assertions.
 *   overhead  — ms of orchestration per step on a 200-step chain whose steps take 0 ms
 *   makespan  — wall time / critical path on DAGs with known step times (1.00 is ideal)
 *   open      — the snapshot a browser reads to open a conversation with that history
 *   hedging   — makespan, p95 step time and extra cost on a long-tailed model, with and
 *               without hedged stragglers (bench/hedging.ts)
 * Before these in-process figures it prints the server-level table (bench/server-bench.ts)
 * and, when asked, the at-scale row and the takeover figure (bench/scale-bench.ts with
 * BATON_BENCH_SCALE=1, bench/takeover-bench.ts with BATON_BENCH_TAKEOVER=1; PostgreSQL
 * only): each starts several servers and takes minutes, too long for every run.
 */
import "./quiet-logs.ts";
import { openEmbeddedBenchDatabase, openPostgresBenchDatabase } from "./bench-database.ts";
import type { Database } from "../server/db/database.ts";
import { createExecutorFixture } from "../server/executor/testing/executor-fixture.ts";
import { createBenchRunner } from "./bench-runner.ts";
import { createAgentRunner } from "../server/agents/run-agent.ts";
import { createModelRegistry } from "../server/agents/model-registry.ts";
import { createPrismaArtifactStore, createPrismaSessionStore } from "../server/adapters/prisma/agent-stores.ts";
import { chain, criticalPathMs, diamondWithStraggler, randomDag, toPlan, type TimedStep } from "./dags.ts";
import { benchServer } from "./server-bench.ts";
import { benchScale } from "./scale-bench.ts";
import { benchTakeover } from "./takeover-bench.ts";
import { growHistory } from "./history.ts";
import { benchHedging, TAIL_SHARES } from "./hedging.ts";
import { conversationOpenFigure } from "./conversation-open.ts";

const UNBOUNDED = 1000;
/** the server's goal for DAGs of short steps (bench/server-bench.ts), held in process too */
const SHORT_STEP_MAKESPAN_GOAL = 1.1;
/** steps (and their runs) stored before the last chain: about a hundred 200-step plans */
const HISTORY_STEPS = 20_000;

/** The real agent runtime (AI SDK loop, tools, session store) on the offline model. */
const offlineRunner = (db: Database) =>
  createAgentRunner({
    models: createModelRegistry({ env: {} }),
    artifacts: createPrismaArtifactStore(db.prisma),
    sessions: createPrismaSessionStore(db.prisma),
  });

/**
 * Wall time from submitting a plan to the moment the executor recorded its end (the
 * plan's endedAt, same clock), so the waiting loop's polling interval is not counted.
 */
async function runPlan(fixture: Awaited<ReturnType<typeof createExecutorFixture>>, plan: ReturnType<typeof toPlan>) {
  const started = Date.now();
  const submitted = await fixture.executor.submitPlan({ conversationId: fixture.conversationId, raw: plan });
  const status = await fixture.waitForPlan(submitted.id, ["completed", "partial", "failed", "cancelled"], 600_000);
  if (status !== "completed") throw new Error(`${plan.title} ended ${status}`);
  const ended = await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: submitted.id }, select: { endedAt: true } });
  return ended.endedAt!.getTime() - started;
}

async function benchDatabase(label: string, open: () => Promise<Database>) {
  const db = await open();
  const fixture = await createExecutorFixture({ db, script: createBenchRunner() });
  await db.prisma.agent.updateMany({ data: { concurrency: UNBOUNDED } });
  try {
    // warm-up (JIT, connection pool, caches) with a full-size run, then the median of three
    const length = 200;
    const median = async (target: typeof fixture) => {
      await runPlan(target, toPlan("warm-up", chain(length), 1));
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) runs.push((await runPlan(target, toPlan("chain", chain(length), 1))) / length);
      runs.sort((a, b) => a - b);
      return { median: runs[1], min: runs[0], max: runs[2] };
    };
    const figure = (m: { median: number; min: number; max: number }) =>
      `${m.median.toFixed(2)} ms/step (median of 3; ${m.min.toFixed(2)}–${m.max.toFixed(2)})`;
    console.log(`${label.padEnd(10)} overhead   200-step chain, 0 ms steps, scripted agent: ${figure(await median(fixture))}`);
    const offline = await createExecutorFixture({ db, createRunner: offlineRunner });
    try {
      console.log(
        `${label.padEnd(10)} overhead   200-step chain, 0 ms steps, offline model via the agent runtime: ${figure(await median(offline))}`,
      );
    } finally {
      await offline.close();
    }
    // the same chain once the database holds what a team runs in months
    const history = await growHistory(db.prisma, HISTORY_STEPS);
    console.log(
      `${label.padEnd(10)} overhead   200-step chain, 0 ms steps, scripted agent, ${history.toLocaleString("en")} steps of history: ${figure(await median(fixture))}`,
    );
    console.log(`${label.padEnd(10)} open       ${await conversationOpenFigure(fixture)}`);

    const report = async (name: string, steps: TimedStep[]) => {
      const makespan = await runPlan(fixture, toPlan(name, steps, UNBOUNDED));
      const critical = criticalPathMs(steps);
      console.log(
        `${label.padEnd(10)} makespan   ${name.padEnd(28)} ${makespan.toFixed(0).padStart(5)} ms / critical path ${critical} ms = ${(makespan / critical).toFixed(3)}`,
      );
      return makespan / critical;
    };
    await report("diamond with straggler", diamondWithStraggler());
    const ratios: number[] = [];
    for (const seed of [1, 2, 3, 4, 5]) ratios.push(await report(`random 20-step DAG seed ${seed}`, randomDag(seed)));
    const mean = ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length;
    const verdict = mean <= SHORT_STEP_MAKESPAN_GOAL ? "met" : "**not met**";
    console.log(
      `${label.padEnd(10)} makespan   mean of random DAGs: ${mean.toFixed(3)} (goal ≤ ${SHORT_STEP_MAKESPAN_GOAL.toFixed(2)}: ${verdict})`,
    );
    // each on a database of its own: the agents' p95 is read from its history
    for (const tailShare of TAIL_SHARES) {
      const fresh = await open();
      try {
        for (const line of await benchHedging(label, fresh, tailShare)) console.log(line);
      } finally {
        await fresh.close();
      }
    }
  } finally {
    await fixture.close();
    await db.close();
  }
}

// first as users feel it (the production server, its API and Socket.IO); BATON_BENCH_SERVER=0 skips it
if (process.env.BATON_BENCH_SERVER !== "0") await benchServer();
if (process.env.BATON_BENCH_SCALE === "1") console.log(await benchScale());
if (process.env.BATON_BENCH_TAKEOVER === "1") console.log(await benchTakeover());
console.log("\nIn process (the executor in the benchmark's own process, no HTTP, silent publisher)\n");
console.log("Baton benchmarks (offline model; parallelism unbounded for makespan)\n");
await benchDatabase("embedded", openEmbeddedBenchDatabase);
const databaseUrl = process.env.DATABASE_URL?.trim();
if (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl)) {
  await benchDatabase("postgres", () => openPostgresBenchDatabase(databaseUrl));
} else {
  console.log(
    "\n(set DATABASE_URL=postgresql://… to benchmark PostgreSQL too: a scratch database is created on that server, with those credentials, and dropped afterwards)",
  );
}
process.exit(0);
