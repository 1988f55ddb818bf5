/**
 * A fake agent runtime for executor tests: a script decides each run's result, and
 * every call is recorded so tests can assert dispatch counts and live concurrency.
 */
import { startConfirmed, type AgentRunResult, type AgentRunner, type RunRequest, type RunSink } from "../../ports/executor.ts";

/** `sink`: the run's live sink, for a script that streams text before it ends (or is stopped) */
export type Script = (request: RunRequest, call: { attempt: number; sink: RunSink }) => Promise<AgentRunResult> | AgentRunResult;

export const NO_USAGE = { tokensIn: 0, tokensOut: 0, cost: 0 };

export const ok = (summary: string, extra: Partial<Extract<AgentRunResult, { kind: "ok" }>> = {}): AgentRunResult => ({
  kind: "ok",
  text: summary,
  summary,
  files: [],
  untrusted: false,
  usage: { tokensIn: 10, tokensOut: 5, cost: 0 },
  ...extra,
});

/**
 * Waits at least `ms` of wall time (performance.now(), the clock run durations are
 * measured with), or until aborted. A timer alone can end early on that clock: it counts
 * from the event loop's cached time, which lags behind while a long task runs (a 30 ms
 * step measured 28.5 ms on a loaded machine), so a short wake-up waits out the rest.
 */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const until = performance.now() + ms;
    let timer: ReturnType<typeof setTimeout>;
    const wait = () => {
      const left = until - performance.now();
      if (left <= 0) return resolve();
      timer = setTimeout(wait, Math.ceil(left));
    };
    wait();
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export class ScriptedRunner implements AgentRunner {
  readonly calls: RunRequest[] = [];
  live = 0;
  maxLive = 0;
  /** per step key (planId:index): how many runs were started */
  readonly startsByStep = new Map<string, number>();
  /** per step key: runs live right now (must never exceed 1) */
  readonly liveByStep = new Map<string, number>();
  maxLivePerStep = 0;

  constructor(private script: Script) {}

  setScript(script: Script): void {
    this.script = script;
  }

  async run(request: RunRequest, sink: RunSink): Promise<AgentRunResult> {
    // like the real runtime: a run started early does nothing until it is this process's
    if (!(await startConfirmed(request))) return { kind: "failed", transient: false, reason: "aborted: not started here", usage: NO_USAGE };
    this.calls.push(request);
    const key = request.step ? `${request.step.planId}:${request.step.stepIndex}` : null;
    const attempt = key ? (this.startsByStep.get(key) ?? 0) + 1 : 1;
    if (key) {
      this.startsByStep.set(key, attempt);
      const liveNow = (this.liveByStep.get(key) ?? 0) + 1;
      this.liveByStep.set(key, liveNow);
      this.maxLivePerStep = Math.max(this.maxLivePerStep, liveNow);
    }
    this.live += 1;
    this.maxLive = Math.max(this.maxLive, this.live);
    try {
      sink.log({ phase: "model", message: `scripted run of @${request.agent.handle}` });
      return await this.script(request, { attempt, sink });
    } finally {
      this.live -= 1;
      if (key) this.liveByStep.set(key, (this.liveByStep.get(key) ?? 1) - 1);
    }
  }
}
