/**
 * Which hops a garbage-collection pause fell into: `npx tsx bench/server/gc-hops.ts`
 * starts a production server with gc-watch.mjs preloaded (the embedded database, or
 * GC_DATABASE_URL's scratch PostgreSQL database), runs CHAINS (default 10) chains of 20
 * zero-time steps after a warm-up chain, and splits their hops (a step's model call
 * ending → the next one's starting, as the server benchmark measures them) by whether
 * the main thread paused for the collector inside them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chain } from "../dags.ts";
import { startServer } from "./launch.ts";
import { chainHops, openSession, runPlan, type PlanRun } from "./measure.ts";
import { median, quantile } from "./workloads.ts";

const chains = Number(process.env.CHAINS ?? 10);
const gcFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "baton-gc-")), "pauses.json");
process.env.BATON_BENCH_GC_FILE = gcFile;
process.env.BATON_BENCH_NODE_ARGS = `${process.env.BATON_BENCH_NODE_ARGS ?? ""} --import ${path.join(import.meta.dirname, "gc-watch.mjs")}`;

interface Hop {
  ms: number;
  /** collector pause inside the hop */
  gcMs: number;
}

const server = await startServer({ label: "gc-hops", databaseUrl: process.env.GC_DATABASE_URL });
const runs: PlanRun[] = [];
let pauses: [number, number][];
try {
  const session = await openSession(server, "gc-hops");
  await runPlan(session, "warm-up chain", chain(20), 1);
  for (let i = 0; i < chains; i++) runs.push(await runPlan(session, `chain ${i + 1}`, chain(20), 1));
  session.watcher.close();
} finally {
  // the preload writes its pauses as the server exits
  await server.stop();
  pauses = fs.existsSync(gcFile) ? (JSON.parse(fs.readFileSync(gcFile, "utf8")) as [number, number][]) : [];
  fs.rmSync(path.dirname(gcFile), { recursive: true, force: true });
}
if (pauses.length === 0) throw new Error("no collector pauses were recorded: did the server exit before writing them?");

const hops: Hop[] = runs.flatMap((run) =>
  chainHops(run).map(({ before, after }) => {
    const [from, to] = [before.end, after.start];
    const gcMs = pauses
      .filter(([start, duration]) => start < to && start + duration > from)
      .reduce((sum, [start, duration]) => sum + Math.min(to, start + duration) - Math.max(from, start), 0);
    return { ms: to - from, gcMs };
  }),
);

const describe = (list: Hop[]) => {
  const ms = list.map((hop) => hop.ms);
  return `${list.length} hops, median ${median(ms)} ms, p90 ${quantile(ms, 0.9)} ms`;
};
// a pause under half a millisecond is noise on a millisecond clock
const hasPause = (hop: Hop) => hop.gcMs >= 0.5;
const paused = hops.filter(hasPause);
const slowest = [...hops].sort((a, b) => b.ms - a.ms).slice(0, Math.ceil(hops.length / 10));
const pauseMedian = median(paused.map((hop) => hop.gcMs)).toFixed(1);
console.log(`all: ${describe(hops)}`);
console.log(
  `with a collector pause inside: ${describe(paused)} (${Math.round((100 * paused.length) / hops.length)}% of hops; pause median ${pauseMedian} ms)`,
);
console.log(`without: ${describe(hops.filter((hop) => !hasPause(hop)))}`);
console.log(`the slowest tenth: ${slowest.filter(hasPause).length} of ${slowest.length} had a pause inside`);
process.exit(0);
