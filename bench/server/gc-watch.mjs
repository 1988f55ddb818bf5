// Preloaded into the server by bench/server/gc-hops.ts (`node --import`): records every
// garbage-collection pause of the main thread, on the wall clock the run log's stamps use,
// and writes them to BATON_BENCH_GC_FILE when the server exits (it stops with process.exit).
import fs from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

const file = process.env.BATON_BENCH_GC_FILE;
if (isMainThread && file) {
  /** [start (ms since the epoch), duration (ms)] */
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([performance.timeOrigin + entry.startTime, entry.duration]);
  }).observe({ entryTypes: ["gc"] });
  process.on("exit", () => fs.writeFileSync(file, JSON.stringify(pauses)));
}
