import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isReleasedByQuorum, notNeededReason, outcomeReport, planOutcome, resultSteps } from "./outcome.ts";
import { makePlan } from "./testing/fixtures.ts";
import { STEP_STATUSES, type StepState } from "./types.ts";

const ENDED = ["done", "failed", "skipped"] as const;

/** A random ended plan: a chain or fan-in of up to 8 steps with random terminal statuses. */
const endedPlan = fc
  .array(fc.record({ status: fc.constantFrom(...ENDED), waitsForAll: fc.boolean(), released: fc.boolean() }), {
    minLength: 1,
    maxLength: 8,
  })
  .map(
    (specs) =>
      makePlan({
        steps: specs.map((spec, i) => ({
          index: i + 1,
          waitFor: i === 0 ? [] : spec.waitsForAll ? Array.from({ length: i }, (_, k) => k + 1) : [i],
          status: spec.status,
          failureReason: spec.status === "skipped" && spec.released ? notNeededReason(i + 2) : spec.status === "done" ? null : "broke",
        })),
      }).steps,
  );

describe("plan outcome", () => {
  it("completed iff every step did its part; partial iff a result step is done; else failed", () => {
    fc.assert(
      fc.property(endedPlan, (steps) => {
        const outcome = planOutcome(steps);
        const allDone = steps.every((step) => step.status === "done" || isReleasedByQuorum(step));
        const waited = new Set(steps.flatMap((step) => step.waitFor));
        const sinkDone = steps.some((step) => !waited.has(step.index) && step.status === "done");
        expect(outcome === "completed").toBe(allDone);
        if (!allDone) expect(outcome).toBe(sinkDone ? "partial" : "failed");
        // the report agrees with the outcome
        const report = outcomeReport({ status: outcome, steps });
        expect(report.missing.length === 0).toBe(outcome === "completed");
        expect(report.delivered.length > 0).toBe(sinkDone);
        expect(report.done + report.missing.length).toBe(report.total);
      }),
      { numRuns: 300 },
    );
  });

  it("a plan whose every step failed and was skipped is failed, and the report names each step and why", () => {
    const steps = makePlan({
      steps: [
        { index: 1, waitFor: [], status: "skipped", failureReason: "503 overloaded (no retries left after 3)" },
        { index: 2, waitFor: [], status: "failed", failureReason: "400 bad request" },
        { index: 3, waitFor: [1, 2], status: "skipped", failureReason: "upstream step 2 failed" },
      ],
    }).steps;
    expect(planOutcome(steps)).toBe("failed");
    const report = outcomeReport({ status: "failed", steps });
    expect(report).toMatchObject({ total: 3, done: 0, delivered: [] });
    expect(report.missing.map((step) => [step.index, step.status, step.reason])).toEqual([
      [1, "skipped", "503 overloaded (no retries left after 3)"],
      [2, "failed", "400 bad request"],
      [3, "skipped", "upstream step 2 failed"],
    ]);
  });

  it("for_each items are not result steps, but a missing item is reported", () => {
    const steps: StepState[] = makePlan({
      steps: [
        { index: 1, waitFor: [], status: "done" },
        { index: 2, waitFor: [1], status: "done" },
        { index: 3, waitFor: [1], status: "skipped", parentIndex: 2, failureReason: "404" },
      ],
    }).steps;
    expect(resultSteps(steps).map((step) => step.index)).toEqual([2]);
    expect(planOutcome(steps)).toBe("partial");
    expect(outcomeReport({ status: "partial", steps })).toMatchObject({ total: 3, done: 2, missing: [{ index: 3, reason: "404" }] });
  });

  it("knows every step status", () => {
    // a new status must be thought about here: it is neither done nor released
    for (const status of STEP_STATUSES)
      expect(isReleasedByQuorum({ status, failureReason: notNeededReason(2) })).toBe(status === "skipped");
  });
});

describe("decided skips", () => {
  it("keep the failure they followed and cannot pass for a quorum release", async () => {
    const { decidedSkipReason } = await import("./reconcile-context.ts");
    expect(decidedSkipReason({ by: "commander", reason: "not worth it", failure: "400 bad request" })).toBe(
      "the commander skipped it: not worth it (it had failed: 400 bad request)",
    );
    expect(decidedSkipReason({ by: "member", reason: "skipped by Ada", failure: null })).toBe("skipped by Ada");
    for (const by of ["commander", "member"] as const) {
      const spoof = decidedSkipReason({ by, reason: notNeededReason(3), failure: "boom" })!;
      expect(isReleasedByQuorum({ status: "skipped", failureReason: spoof })).toBe(false);
    }
  });
});
