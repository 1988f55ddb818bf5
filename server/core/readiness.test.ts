import { describe, expect, it } from "vitest";
import { hasSettled, isDeadEnd, requirementMet, unreachableBecause, type DependencyView } from "./dependencies.ts";
import { nextRetryAt, readySteps } from "./readiness.ts";
import { isLiveStep, isSuccessfulEnough, isTerminalPlan, isTerminalStep } from "./status.ts";
import { done, live, makePlan, NOW } from "./testing/fixtures.ts";

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
    const plan = makePlan({
      steps: [
        { index: 1, retryAt: NOW + 1 },
        { index: 2, waitFor: [], retryAt: NOW },
      ],
    });
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

describe("readySteps: optional dependencies", () => {
  const consumer = { index: 3, waitFor: [1, 2], optionalWaitFor: [2] };

  it("an optional dependency that failed for good does not block", () => {
    const plan = makePlan({ steps: [done(1), { index: 2, waitFor: [], status: "failed", failureReason: "x" }, consumer] });
    expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([3]);
  });

  it("done and skipped optional dependencies pass, like required ones", () => {
    for (const status of ["done", "skipped"] as const) {
      const plan = makePlan({ steps: [done(1), { index: 2, waitFor: [], status }, consumer] });
      expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([3]);
    }
  });

  it("waits while the optional dependency is open or awaits a decision", () => {
    for (const init of [
      { status: "pending" },
      { status: "in_progress", liveRunId: "r" },
      { status: "blocked" },
      { status: "failed", decisionPending: true },
    ] as const) {
      const plan = makePlan({ steps: [done(1), { index: 2, waitFor: [], ...init }, consumer] });
      expect(readySteps(plan, NOW).map((step) => step.index)).not.toContain(3);
    }
  });

  it("a required dependency still has to succeed", () => {
    const plan = makePlan({ steps: [{ index: 1, status: "failed" }, done(2, { waitFor: [] }), consumer] });
    expect(readySteps(plan, NOW)).toEqual([]);
  });
});

describe("readySteps: quorum", () => {
  const quorum = { index: 4, waitFor: [1, 2, 3], quorum: 2 };

  it("is ready once k dependencies are done or skipped, whatever the others do", () => {
    const plan = makePlan({
      steps: [done(1, { waitFor: [] }), { index: 2, waitFor: [], status: "skipped" }, live(3, { waitFor: [] }), quorum],
    });
    expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([4]);
    const failedRest = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        done(2, { waitFor: [] }),
        { index: 3, waitFor: [], status: "failed", decisionPending: true },
        quorum,
      ],
    });
    expect(readySteps(failedRest, NOW).map((step) => step.index)).toEqual([4]);
  });

  it("is not ready below k", () => {
    const plan = makePlan({
      steps: [done(1, { waitFor: [] }), { index: 2, waitFor: [], status: "failed" }, live(3, { waitFor: [] }), quorum],
    });
    expect(readySteps(plan, NOW)).toEqual([]);
  });

  it("counts every entry alike, optional or not", () => {
    const plan = makePlan({
      steps: [done(1, { waitFor: [] }), { index: 2, waitFor: [] }, { index: 3, waitFor: [1, 2], optionalWaitFor: [1], quorum: 1 }],
    });
    expect(readySteps(plan, NOW).map((step) => step.index)).toEqual([2, 3]);
  });
});

describe("dependency rules", () => {
  it("hasSettled and isDeadEnd", () => {
    const ask = "ask_commander" as const;
    expect(hasSettled({ status: "failed", decisionPending: false, onFailure: ask, failureReason: null })).toBe(true);
    expect(hasSettled({ status: "failed", decisionPending: true, onFailure: ask, failureReason: null })).toBe(false);
    expect(hasSettled({ status: "skipped", decisionPending: false, onFailure: ask, failureReason: null })).toBe(true);
    expect(hasSettled({ status: "blocked", decisionPending: false, onFailure: ask, failureReason: null })).toBe(false);
    expect(isDeadEnd({ status: "failed", decisionPending: false, onFailure: ask, failureReason: null })).toBe(true);
    expect(isDeadEnd({ status: "failed", decisionPending: true, onFailure: ask, failureReason: null })).toBe(false);
    expect(isDeadEnd({ status: "skipped", decisionPending: false, onFailure: ask, failureReason: null })).toBe(false);
    // failed under continue: its dependants go on past it, as past a skipped step
    expect(isDeadEnd({ status: "failed", decisionPending: false, onFailure: "continue", failureReason: null })).toBe(false);
  });

  it("a required dependency that failed under continue lets its dependant start, and counts toward a quorum", () => {
    const continued = { status: "failed" as const, decisionPending: false, onFailure: "continue" as const, failureReason: null };
    const asked = { status: "failed" as const, decisionPending: true, onFailure: "continue" as const, failureReason: null };
    expect(requirementMet({ index: 9, waitFor: [1], optionalWaitFor: [], quorum: null }, () => continued)).toBe(true);
    expect(requirementMet({ index: 9, waitFor: [1], optionalWaitFor: [], quorum: 1 }, () => continued)).toBe(true);
    // a budget refusal asks whatever the policy: until the decision it holds its dependants
    expect(requirementMet({ index: 9, waitFor: [1], optionalWaitFor: [], quorum: null }, () => asked)).toBe(false);
  });

  it("a quorum never counts the stragglers it released itself", () => {
    const done = { status: "done" as const, decisionPending: false, onFailure: "continue" as const, failureReason: null };
    const releasedBy = (index: number) => ({
      ...done,
      status: "skipped" as const,
      failureReason: `not needed: quorum of step ${index} reached`,
    });
    const deps = new Map<number, DependencyView>([
      [1, done],
      [2, releasedBy(9)],
      [3, releasedBy(8)],
    ]);
    // step 9 released step 2: once a counted dependency is retried, 9 needs its quorum anew
    expect(requirementMet({ index: 9, waitFor: [1, 2], optionalWaitFor: [], quorum: 2 }, (index) => deps.get(index))).toBe(false);
    // released by another quorum step, it is skipped as far as step 9 goes
    expect(requirementMet({ index: 9, waitFor: [1, 3], optionalWaitFor: [], quorum: 2 }, (index) => deps.get(index))).toBe(true);
  });

  it("requirementMet never counts a dependency that does not resolve", () => {
    expect(requirementMet({ index: 9, waitFor: [7], optionalWaitFor: [7], quorum: null }, () => undefined)).toBe(false);
    expect(requirementMet({ index: 9, waitFor: [7], optionalWaitFor: [], quorum: 1 }, () => undefined)).toBe(false);
    expect(requirementMet({ index: 9, waitFor: [], optionalWaitFor: [], quorum: null }, () => undefined)).toBe(true);
  });

  it("unreachableBecause: required edges doom, optional never do, quorum when too few are left", () => {
    const dead = (indexes: number[]) => (index: number) => indexes.includes(index);
    expect(unreachableBecause({ waitFor: [1, 2], optionalWaitFor: [], quorum: null }, dead([2]))).toBe(2);
    expect(unreachableBecause({ waitFor: [1, 2], optionalWaitFor: [1], quorum: null }, dead([1]))).toBeNull();
    expect(unreachableBecause({ waitFor: [1, 2], optionalWaitFor: [1], quorum: null }, dead([1, 2]))).toBe(2);
    expect(unreachableBecause({ waitFor: [1, 2, 3], optionalWaitFor: [], quorum: 2 }, dead([1]))).toBeNull();
    expect(unreachableBecause({ waitFor: [1, 2, 3], optionalWaitFor: [], quorum: 2 }, dead([1, 3]))).toBe(1);
    expect(unreachableBecause({ waitFor: [1], optionalWaitFor: [], quorum: null }, dead([]))).toBeNull();
  });
});
