import { describe, expect, it } from "vitest";
import { ProviderCircuits, ProviderUnavailableError, type CircuitClock } from "./circuit-breaker.ts";

/** A clock that moves only when the test says so. */
function manualClock(start = 1_000_000) {
  let now = start;
  const timers = new Set<{ at: number; fire: () => void }>();
  const clock: CircuitClock = {
    now: () => now,
    setTimer(ms, fire) {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
  };
  return {
    clock,
    /** moves time forward, firing due timers, and lets the woken waiters run */
    async advance(ms: number) {
      now += ms;
      for (const timer of [...timers].filter((candidate) => candidate.at <= now)) {
        timers.delete(timer);
        timer.fire();
      }
      await flush();
    },
  };
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

const POLICY = { failureThreshold: 3, coolDownMs: 10_000, maxCoolDownMs: 40_000, maxWaitMs: 600_000 };
const never = new AbortController().signal;

/** A model id's circuit target: `anthropic:claude` → provider anthropic. */
const target = (model: string) => ({ provider: model.slice(0, model.indexOf(":")), model });
const SONNET = "anthropic:claude-sonnet-4-5";

function setup() {
  const time = manualClock();
  const circuits = new ProviderCircuits({ policy: POLICY, clock: time.clock });
  const acquire = (model = SONNET, signal = never) =>
    circuits.acquire(target(model), { signal, deadline: time.clock.now() + POLICY.maxWaitMs });
  const fail = async (times: number, model = SONNET) => {
    for (let i = 0; i < times; i++) (await acquire(model)).failedTransiently("503");
  };
  const state = (model = SONNET) => circuits.snapshot().find((view) => view.model === model);
  return { time, circuits, acquire, fail, state };
}

describe("provider circuit breaker", () => {
  it("stays closed below the threshold, and a success resets the count", async () => {
    const { acquire, fail, state } = setup();
    await fail(2);
    expect(state()).toMatchObject({ state: "closed", consecutiveFailures: 2 });
    (await acquire()).succeeded();
    expect(state()).toMatchObject({ state: "closed", consecutiveFailures: 0 });
  });

  it("opens after repeated transient failures; callers wait without calling until the cool-down, then one probes", async () => {
    const { time, acquire, fail, state } = setup();
    await fail(3);
    expect(state()).toMatchObject({ state: "open", consecutiveFailures: 3, opened: 1, nextProbeAt: time.clock.now() + 10_000 });
    const admitted: string[] = [];
    const callers = ["a", "b", "c"].map((name) => acquire().then((ticket) => (admitted.push(name), ticket)));
    await flush();
    expect(admitted).toEqual([]);
    expect(state()!.waiting).toBe(3);
    await time.advance(9_999);
    expect(admitted).toEqual([]);
    await time.advance(1);
    // exactly one probe goes out; the others keep waiting for its verdict
    expect(admitted).toHaveLength(1);
    expect(state()!.state).toBe("half-open");
    const probe = await callers[admitted[0] === "a" ? 0 : admitted[0] === "b" ? 1 : 2];
    expect(probe.probe).toBe(true);
    probe.succeeded();
    await flush();
    expect(admitted).toHaveLength(3);
    expect(state()).toMatchObject({ state: "closed", consecutiveFailures: 0, nextProbeAt: null });
  });

  it("a failed probe opens the circuit again with a doubled cool-down, capped", async () => {
    const { time, acquire, fail, state } = setup();
    await fail(3);
    for (const coolDown of [20_000, 40_000, 40_000]) {
      await time.advance(state()!.nextProbeAt! - time.clock.now());
      const probe = await acquire();
      expect(probe.probe).toBe(true);
      probe.failedTransiently("still 503");
      expect(state()).toMatchObject({ state: "open", nextProbeAt: time.clock.now() + coolDown, lastFailure: "still 503" });
    }
  });

  it("a cancelled probe lets the next waiter probe at once", async () => {
    const { time, acquire, fail, state } = setup();
    await fail(3);
    await time.advance(10_000);
    const probe = await acquire();
    let next: boolean | null = null;
    void acquire().then((ticket) => (next = ticket.probe));
    await flush();
    expect(next).toBeNull();
    probe.released();
    await flush();
    expect(next).toBe(true);
    expect(state()!.state).toBe("half-open");
  });

  it("a waiting run gives up at its deadline with a transient, named error, and a cancelled one stops waiting", async () => {
    const { time, circuits, fail } = setup();
    await fail(3);
    // the run began waiting 600 s ago (an earlier call): the error says the whole wait, and the provider's last answer
    const waitingSince = time.clock.now() - 600_000;
    const waiting = circuits.acquire(target(SONNET), { signal: never, deadline: time.clock.now() + 5_000, waitingSince });
    const outcome = waiting.catch((error: unknown) => error);
    await time.advance(5_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).waitedMs).toBe(605_000);
    expect((error as Error).message).toBe(
      `${SONNET} is unavailable: its circuit stayed open while the run waited 10 min 5 s; last failure: 503`,
    );

    const controller = new AbortController();
    const cancelled = circuits
      .acquire(target(SONNET), { signal: controller.signal, deadline: time.clock.now() + 60_000 })
      .catch((reason: unknown) => reason);
    controller.abort(new Error("cancelled"));
    expect(((await cancelled) as Error).message).toBe("cancelled");
    expect(circuits.snapshot()[0].waiting).toBe(0);
  });

  it("models are independent, and late failures of calls admitted before the opening are not double-counted", async () => {
    const { acquire, fail, state } = setup();
    const early = await acquire("openai:gpt-4.1");
    await fail(3, "openai:gpt-4.1");
    expect(state("openai:gpt-4.1")!.state).toBe("open");
    early.failedTransiently("late 503");
    expect(state("openai:gpt-4.1")).toMatchObject({ state: "open", consecutiveFailures: 3 });
    expect(state(SONNET)).toBeUndefined();
    (await acquire("local:llama")).succeeded();
    expect(state("local:llama")!.state).toBe("closed");
  });

  it("a failing model does not stall a healthy model of the same provider", async () => {
    const { acquire, fail, state } = setup();
    await fail(3, "openai:gpt-4.1");
    expect(state("openai:gpt-4.1")!.state).toBe("open");
    // the failing model's callers wait for its probe; the healthy model's go out at once
    let failingAdmitted = false;
    void acquire("openai:gpt-4.1").then(() => (failingAdmitted = true));
    const healthy = await acquire("openai:gpt-4.1-mini");
    expect(healthy.probe).toBe(false);
    healthy.succeeded();
    await flush();
    expect(failingAdmitted).toBe(false);
    expect(state("openai:gpt-4.1-mini")).toMatchObject({ provider: "openai", state: "closed", waiting: 0 });
    expect(state("openai:gpt-4.1")).toMatchObject({ provider: "openai", state: "open", waiting: 1 });
  });
});
