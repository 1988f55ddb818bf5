/**
 * reconcile and the provider's Retry-After: a long one is a durable wait of the step
 * (pending until then), not a failure; an absurd one fails it naming the wait.
 */
import { describe, expect, it } from "vitest";
import { live, makePlan, NOW, run, stepOf } from "./testing/fixtures.ts";
import { MAX_RETRY_AFTER_MS } from "./retry-policy.ts";

const rateLimited = (retryAfterMs: number) =>
  ({
    type: "run-finished",
    stepIndex: 1,
    runId: "run-1",
    outcome: { kind: "failed", transient: true, reason: "openai (HTTP 429): slow down", retryAfterMs },
  }) as const;

describe("reconcile: Retry-After", () => {
  it("a Retry-After of 120 s puts the step back to pending until then, spending one retry", () => {
    const result = run(makePlan({ steps: [live(1, { maxRetries: 3 })] }), rateLimited(120_000), { random: () => 0 });
    expect(stepOf(result, 1)).toMatchObject({ status: "pending", transientFailures: 1, retryAt: NOW + 120_000 });
    expect(result.commands).toEqual([{ type: "schedule-tick", at: NOW + 120_000 }]);
    expect(result.log.map((entry) => entry.message).join("\n")).toContain("waiting 2 min as the provider asked");
    // and the tick at that time dispatches it again
    const later = run(result.plan, { type: "tick" }, { now: NOW + 120_000 });
    expect(later.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 1, attempt: 2 })]);
  });

  it("a Retry-After beyond MAX_RETRY_AFTER_MS fails the step, saying what the provider asked and what was spent", () => {
    const plan = makePlan({ steps: [live(1, { maxRetries: 3, transientFailures: 1, startedAt: NOW - 95_000 })] });
    const result = run(plan, rateLimited(MAX_RETRY_AFTER_MS + 60_000));
    expect(stepOf(result, 1).status).toBe("failed");
    expect(stepOf(result, 1).failureReason).toBe(
      "openai (HTTP 429): slow down (the provider asked to wait 61 min, longer than Baton waits; 1 retry over 95 s)",
    );
  });

  it("the final reason of a spent budget names the provider's answer, the retries and the time they took", () => {
    const plan = makePlan({ steps: [live(1, { maxRetries: 2, transientFailures: 2, startedAt: NOW - 605_000 })] });
    const result = run(plan, rateLimited(1_000));
    expect(stepOf(result, 1).failureReason).toBe("openai (HTTP 429): slow down (no retries left after 2 over 10 min 5 s)");
  });
});
