import { describe, expect, it } from "vitest";
import { nextRetryAt, readySteps } from "./readiness.ts";
import { isLiveStep, isSuccessfulEnough, isTerminalPlan, isTerminalStep } from "./status.ts";
import { done, live, makePlan, NOW } from "./test-fixtures.ts";

describe("status predicates", () => {
  it("classify step and plan statuses", () => {
    expect(["done", "failed", "skipped"].every((status) => isTerminalStep(status as never))).toBe(true);
    expect(["pending", "in_progress", "blocked"].some((status) => isTerminalStep(status as never))).toBe(false);
    expect(isSuccessfulEnough("done") && isSuccessfulEnough("skipped")).toBe(true);
    expect(isSuccessfulEnough("failed")).toBe(false);
    expect(isLiveStep("in_progress")).toBe(true);
    expect(isLiveStep("blocked")).toBe(false);
    expect(isTerminalPlan("completed") && isTerminalPlan("failed") && isTerminalPlan("cancelled")).toBe(true);
    expect(isTerminalPlan("paused") || isTerminalPlan("running")).toBe(false);
  });
});

describe("readySteps", () => {
  it("returns pending steps whose upstream steps are done or skipped, in index order", () => {
    const plan = makePlan({
      steps: [
        done(1),
        { index: 2, status: "skipped" },
        { index: 3, waitFor: [1, 2] },
        { index: 4, waitFor: [3] },
        { index: 5, waitFor: [] },
        live(6, { waitFor: [] }),
        { index: 7, waitFor: [6] },
      ],
    });
    expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([3, 5]);
  });

  it("waits for a failed upstream step", () => {
    const plan = makePlan({ steps: [{ index: 1, status: "failed" }, { index: 2 }] });
    expect(readySteps(plan, NOW)).toEqual([]);
  });

  it("respects retry backoff", () => {
    const plan = makePlan({ steps: [{ index: 1, retryAt: NOW + 1 }, { index: 2, waitFor: [], retryAt: NOW }] });
    expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([2]);
    expect(readySteps(plan, NOW + 1).map((step) => step.index)).toEqual([1, 2]);
  });
});

describe("nextRetryAt", () => {
  it("is the earliest retry among pending steps", () => {
    const plan = makePlan({
      steps: [{ index: 1, retryAt: NOW + 500 }, { index: 2, waitFor: [], retryAt: NOW + 200 }, live(3, { retryAt: NOW + 1 })],
    });
    expect(nextRetryAt(plan)).toBe(NOW + 200);
    expect(nextRetryAt(makePlan({ steps: [{ index: 1 }] }))).toBeNull();
  });
});
