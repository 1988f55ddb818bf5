/**
 * The run loop's hot path: the "model-timing" log line (when the model itself worked,
 * so a benchmark or a person reading the step log can tell the model's time from
 * Baton's) and a session write that delays only the runs that need it stored.
 */
import { describe, expect, it } from "vitest";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

type Timing = { calls: number; firstCallStartedAt: string; lastCallEndedAt: string | null };
const timingOf = (sink: ReturnType<typeof recordingSink>) => {
  const lines = sink.logs.filter((entry) => entry.phase === "model-timing");
  expect(lines).toHaveLength(1);
  return lines[0].data as Timing;
};

describe("model timing in the run log", () => {
  it("brackets the model's own work: the call starts before the simulated work and ends after it", async () => {
    const { runner } = testRuntime();
    const sink = recordingSink();
    const before = Date.now();
    const result = await runner.run(
      runRequest({ agent: agentProfile({ allowedTools: ["finish"] }), input: "@offline sleep=40\nwork" }),
      sink,
    );
    const after = Date.now();
    expect(result.kind).toBe("ok");
    const timing = timingOf(sink);
    expect(timing.calls).toBe(1);
    const started = Date.parse(timing.firstCallStartedAt);
    const ended = Date.parse(timing.lastCallEndedAt!);
    expect(started).toBeGreaterThanOrEqual(before);
    expect(ended).toBeLessThanOrEqual(after);
    // the 40 ms of simulated work lie between the stamps (timers may fire 1 ms early)
    expect(ended - started).toBeGreaterThanOrEqual(39);
  });

  it("is logged for a failed run too", async () => {
    const { runner } = testRuntime();
    const failed = recordingSink();
    const result = await runner.run(runRequest({ input: "@offline fail=fatal\nwork" }), failed);
    expect(result.kind).toBe("failed");
    expect(timingOf(failed).calls).toBe(1);
  });
});

describe("storing the session", () => {
  /** a session store whose writes finish only when the test says so */
  function heldStore() {
    const writes: { runId: string; finish: () => void }[] = [];
    let called: () => void = () => {};
    const calledOnce = new Promise<void>((resolve) => (called = resolve));
    return {
      writes,
      calledOnce,
      store: {
        load: async () => null,
        save: (runId: string) =>
          new Promise<void>((resolve) => {
            writes.push({ runId, finish: resolve });
            called();
          }),
      },
    };
  }
  const ticks = () => new Promise((resolve) => setImmediate(resolve));

  it("does not hold a finished run's result back: the write goes on in the background", async () => {
    const held = heldStore();
    const { runner } = testRuntime({ deps: { sessions: held.store } });
    const result = await runner.run(runRequest({ agent: agentProfile({ allowedTools: ["finish"] }), input: "work" }), recordingSink());
    expect(result.kind).toBe("ok");
    expect(held.writes).toHaveLength(1); // started, still unfinished
  });

  it("reports a blocked run only once its session is stored, since answering the form resumes it", async () => {
    const held = heldStore();
    const { runner } = testRuntime({ deps: { sessions: held.store } });
    let reported = false;
    const run = runner
      .run(runRequest({ input: "Deploy it\n@offline block=1", step: { planId: "p1", stepIndex: 1, title: "Deploy" } }), recordingSink())
      .then((result) => {
        reported = true;
        return result;
      });
    await held.calledOnce;
    await ticks();
    expect(reported).toBe(false);
    held.writes[0].finish();
    expect(await run).toMatchObject({ kind: "blocked" });
  });
});

describe("a run started early (its unit not yet committed)", () => {
  const modelCalls = (sink: ReturnType<typeof recordingSink>) => sink.logs.filter((entry) => entry.phase === "model-timing").length;

  it("prepares, but calls its model only once it is confirmed", async () => {
    const { runner } = testRuntime();
    const sink = recordingSink();
    let confirm!: (yes: boolean) => void;
    const confirmed = new Promise<boolean>((resolve) => (confirm = resolve));
    let settled = false;
    const running = runner
      .run(runRequest({ agent: agentProfile({ allowedTools: ["finish"] }), input: "@offline\nwork", confirmed }), sink)
      .finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // a zero-time offline call would have ended long ago: the run waits for its confirmation
    expect(settled).toBe(false);
    expect(sink.deltas).toEqual([]);
    const confirmedAt = Date.now();
    confirm(true);
    const result = await running;
    expect(result.kind).toBe("ok");
    expect(Date.parse(timingOf(sink).firstCallStartedAt)).toBeGreaterThanOrEqual(confirmedAt);
  });

  it("never calls its model when it is not this process's run", async () => {
    const { runner } = testRuntime();
    const sink = recordingSink();
    const controller = new AbortController();
    const request = runRequest({
      agent: agentProfile({ allowedTools: ["finish"] }),
      input: "@offline\nwork",
      signal: controller.signal,
      confirmed: Promise.resolve(false).finally(() => controller.abort()),
    });
    const result = await runner.run(request, sink);
    expect(result.kind).toBe("failed");
    expect(modelCalls(sink)).toBe(0);
    expect(sink.deltas).toEqual([]);
  });

  it("reads the conversation only once confirmed (the messages it answers are being written)", async () => {
    const reads: number[] = [];
    const { runner } = testRuntime({
      deps: {
        memory: {
          recent: async () => {
            reads.push(Date.now());
            return { messages: [], olderExist: false };
          },
          range: async () => [],
          loadSummary: async () => null,
          saveSummary: async () => undefined,
        },
      },
    });
    let confirm!: (yes: boolean) => void;
    const confirmed = new Promise<boolean>((resolve) => (confirm = resolve));
    const running = runner.run(runRequest({ input: "@offline\nhello", confirmed }), recordingSink());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads).toEqual([]);
    confirm(true);
    expect((await running).kind).toBe("ok");
    expect(reads).toHaveLength(1);
  });
});
