import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HARD_MAX_RETRIES, MAX_BACKOFF_MS } from "./failure-policy.ts";
import {
  decideDurable,
  decideInRun,
  describeWait,
  IN_RUN_RETRIES,
  inRunRetriesFor,
  MAX_RETRY_AFTER_MS,
  maxProviderCalls,
  SHORT_RETRY_AFTER_MS,
  type ProviderFailure,
} from "./retry-policy.ts";

const retryAfter = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: SHORT_RETRY_AFTER_MS }),
  fc.integer({ min: SHORT_RETRY_AFTER_MS + 1, max: MAX_RETRY_AFTER_MS }),
  fc.integer({ min: MAX_RETRY_AFTER_MS + 1, max: 10 * MAX_RETRY_AFTER_MS }),
);
const failure: fc.Arbitrary<ProviderFailure> = fc.record({
  kind: fc.constantFrom("transient", "transient", "transient", "context-overflow", "fatal"),
  httpStatus: fc.constantFrom(null, 200, 429, 500, 503, 400),
  retryAfterMs: retryAfter,
});
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

/** Runs one attempt chain against a provider that fails with `failures` (then repeats the last). */
function simulateChain(input: { failures: ProviderFailure[]; maxRetries: number; random: number }) {
  const next = (call: number) => input.failures[Math.min(call, input.failures.length - 1)];
  const seen = new Set<string>();
  let calls = 0;
  for (let attempt = 1; ; attempt += 1) {
    let left = inRunRetriesFor(attempt);
    for (;;) {
      const failed = next(calls);
      calls += 1;
      const verdict = decideInRun({ failure: failed, inRunRetriesLeft: left, random: () => input.random });
      seen.add(verdict.kind);
      if (verdict.kind === "resume" || verdict.kind === "honour-retry-after" || verdict.kind === "compact") {
        expect(left).toBeGreaterThan(0);
        left -= 1;
        continue;
      }
      if (verdict.kind === "fail") return { calls, seen, ended: "fail" };
      const durable = decideDurable({
        failuresBefore: attempt - 1,
        maxRetries: input.maxRetries,
        retryAfterMs: verdict.retryAfterMs,
        random: () => input.random,
      });
      seen.add(durable.kind === "retry" ? (durable.waitsForProvider ? "durable-wait" : "durable-retry") : durable.why);
      if (durable.kind === "fail") return { calls, seen, ended: durable.why };
      break;
    }
  }
}

describe("retry policy", () => {
  it("one attempt chain makes at most 1 + maxRetries + IN_RUN_RETRIES provider calls, whatever fails", () => {
    const reached = new Map<string, number>();
    fc.assert(
      fc.property(
        fc.array(failure, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: HARD_MAX_RETRIES + 5 }),
        random,
        (failures, maxRetries, r) => {
          const result = simulateChain({ failures, maxRetries, random: r });
          for (const kind of result.seen) reached.set(kind, (reached.get(kind) ?? 0) + 1);
          expect(result.calls).toBeLessThanOrEqual(maxProviderCalls(maxRetries));
        },
      ),
      { numRuns: 500 },
    );
    // every rule was reached, so the bound was tested against each of them
    for (const kind of [
      "resume",
      "honour-retry-after",
      "compact",
      "escalate",
      "fail",
      "durable-retry",
      "durable-wait",
      "no-retries-left",
      "retry-after-too-long",
    ]) {
      expect(reached.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
  });

  it("with the defaults (3 step retries) a step that always gets a 500 costs 4 calls, one that always gets cut 5", () => {
    const error500: ProviderFailure = { kind: "transient", httpStatus: 500, retryAfterMs: null };
    const cut: ProviderFailure = { kind: "transient", httpStatus: null, retryAfterMs: null };
    expect(simulateChain({ failures: [error500], maxRetries: 3, random: 0.5 }).calls).toBe(4);
    expect(simulateChain({ failures: [cut], maxRetries: 3, random: 0.5 }).calls).toBe(5);
    expect(maxProviderCalls(3)).toBe(5);
  });

  it("retries in place only on the chain's first run, and never without retries left", () => {
    expect(inRunRetriesFor(1)).toBe(IN_RUN_RETRIES);
    fc.assert(
      fc.property(failure, fc.integer({ min: 2, max: 50 }), random, (failed, attempt, r) => {
        const verdict = decideInRun({ failure: failed, inRunRetriesLeft: inRunRetriesFor(attempt), random: () => r });
        expect(["escalate", "fail"]).toContain(verdict.kind);
      }),
    );
  });

  it("a fatal error fails at once; a transient one never fails outright", () => {
    fc.assert(
      fc.property(failure, fc.integer({ min: 0, max: 3 }), random, (failed, left, r) => {
        const verdict = decideInRun({ failure: failed, inRunRetriesLeft: left, random: () => r });
        if (failed.kind === "fatal") expect(verdict.kind).toBe("fail");
        if (failed.kind === "transient") expect(verdict.kind).not.toBe("fail");
      }),
    );
  });

  it("a run waits in memory only for a short Retry-After; a longer one becomes a durable wait of at least that long", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: SHORT_RETRY_AFTER_MS + 1, max: MAX_RETRY_AFTER_MS }),
        fc.integer({ min: 0, max: 2 }),
        random,
        (after, failuresBefore, r) => {
          const failed: ProviderFailure = { kind: "transient", httpStatus: 429, retryAfterMs: after };
          const verdict = decideInRun({ failure: failed, inRunRetriesLeft: 1, random: () => r });
          expect(verdict).toEqual({ kind: "escalate", retryAfterMs: after });
          const durable = decideDurable({ failuresBefore, maxRetries: 3, retryAfterMs: after, random: () => r });
          expect(durable.kind).toBe("retry");
          if (durable.kind === "retry") expect(durable.delayMs).toBeGreaterThanOrEqual(after);
        },
      ),
    );
    expect(
      decideInRun({ failure: { kind: "transient", httpStatus: 429, retryAfterMs: 2_000 }, inRunRetriesLeft: 1, random: () => 0 }),
    ).toEqual({
      kind: "honour-retry-after",
      delayMs: 2_000,
    });
  });

  it("the durable delay is the backoff or the Retry-After, whichever is longer, and the budget is the step's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        retryAfter,
        random,
        (failuresBefore, maxRetries, after, r) => {
          const verdict = decideDurable({ failuresBefore, maxRetries, retryAfterMs: after, random: () => r });
          if (failuresBefore >= Math.min(maxRetries, HARD_MAX_RETRIES)) {
            expect(verdict).toEqual({ kind: "fail", why: "no-retries-left" });
            return;
          }
          if (after !== null && after > MAX_RETRY_AFTER_MS) {
            expect(verdict).toEqual({ kind: "fail", why: "retry-after-too-long" });
            return;
          }
          expect(verdict.kind).toBe("retry");
          if (verdict.kind !== "retry") return;
          expect(verdict.delayMs).toBeGreaterThanOrEqual(after ?? 0);
          expect(verdict.delayMs).toBeLessThanOrEqual(Math.max(MAX_BACKOFF_MS, after ?? 0));
          // a wait for the provider lasts exactly its Retry-After; otherwise the backoff rules
          if (verdict.waitsForProvider) expect(verdict.delayMs).toBe(Math.ceil(after ?? Number.NaN));
          else expect(verdict.delayMs).toBeLessThanOrEqual(MAX_BACKOFF_MS);
        },
      ),
    );
  });

  it("describes a wait as people read it", () => {
    expect([0, 1_400, 95_000, 120_000, 605_000].map(describeWait)).toEqual(["0 s", "1 s", "95 s", "2 min", "10 min 5 s"]);
  });
});
