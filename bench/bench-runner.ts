/**
 * The agent behaviour the benchmarks use: honours `@offline sleep=MS` and answers at
 * once otherwise, so what is measured is Baton's orchestration, not a model.
 */
import { ok, sleep, type Script } from "../server/executor/testing/scripted-runner.ts";

export function createBenchRunner(): Script {
  return async (request) => {
    const ms = Number(/sleep=(\d+)/.exec(request.input)?.[1] ?? 0);
    if (ms > 0) await sleep(ms, request.signal);
    return ok(`item ${request.step?.stepIndex ?? 0} done`);
  };
}
