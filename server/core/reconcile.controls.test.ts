/** Reconcile: member controls (retry, skip), cancel, and steps that can never run. */
import { describe, expect, it } from "vitest";
import { done, live, makePlan, NOW, run, stepOf } from "./testing/fixtures.ts";

describe("reconcile: member controls and cancel", () => {
  it("retry-step resets a failed step", () => {
    const plan = makePlan({ steps: [{ index: 1, status: "failed", decisionPending: true, failureReason: "x", transientFailures: 3 }] });
    const result = run(plan, { type: "retry-step", stepIndex: 1 });
    expect(stepOf(result, 1)).toMatchObject({ status: "in_progress", decisionPending: false, transientFailures: 0, failureReason: null });
  });

  it("retry-step on a step that did not fail is ignored", () => {
    const plan = makePlan({ steps: [done(1)] });
    expect(run(plan, { type: "retry-step", stepIndex: 1 })).toMatchObject({ plan, commands: [], changedSteps: [] });
  });

  it("a control that does not apply says why, one that applies says nothing", () => {
    const plan = makePlan({ steps: [done(1, { waitFor: [] }), live(2, { waitFor: [] }), { index: 3, waitFor: [1, 2] }] });
    expect(run(plan, { type: "retry-step", stepIndex: 1 }).ignored).toBe("step 1 is done; only a failed step can be retried");
    expect(run(plan, { type: "skip-step", stepIndex: 2, reason: "x" }).ignored).toBe(
      "step 2 is in progress; only a failed or pending step can be skipped",
    );
    expect(run(plan, { type: "retry-step", stepIndex: 9 }).ignored).toBe("step 9 does not exist in this plan");
    expect(run(plan, { type: "skip-step", stepIndex: 3, reason: "x" }).ignored).toBeUndefined();
    expect(run(plan, { type: "cancel", reason: "x" }).ignored).toBeUndefined();
    const ended = makePlan({ status: "completed", steps: [done(1, { waitFor: [] })] });
    expect(run(ended, { type: "cancel", reason: "x" })).toMatchObject({
      plan: ended,
      commands: [],
      ignored: "the plan is completed; cancel no longer applies",
    });
  });

  it("skip-step skips a pending or failed step, nothing else", () => {
    const pending = makePlan({ steps: [live(1, { waitFor: [] }), { index: 2, waitFor: [], retryAt: NOW + 9 }], maxParallel: 1 });
    const result = run(pending, { type: "skip-step", stepIndex: 2, reason: "not needed" });
    // a member's free text is marked as theirs
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "skipped by a member: not needed", retryAt: null });
    expect(run(pending, { type: "skip-step", stepIndex: 1, reason: "x" })).toMatchObject({ plan: pending, commands: [] });
    const failed = makePlan({ steps: [{ index: 1, status: "failed", decisionPending: true }, { index: 2 }] });
    const skipped = run(failed, { type: "skip-step", stepIndex: 1, reason: "fine" });
    expect(stepOf(skipped, 1)).toMatchObject({ status: "skipped", decisionPending: false });
    expect(skipped.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });

  it("cancel skips every open step, cancels live runs and ends the plan", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        live(2, { waitFor: [] }),
        { index: 3, status: "blocked", waitFor: [] },
        { index: 4 },
        { index: 5, status: "failed", decisionPending: true, waitFor: [] },
      ],
    });
    const result = run(plan, { type: "cancel", reason: "stop please" });
    expect(result.plan.status).toBe("cancelled");
    expect(result.plan.steps.map((step) => step.status)).toEqual(["done", "skipped", "skipped", "skipped", "failed"]);
    expect(stepOf(result, 4).failureReason).toBe("stop please");
    expect(stepOf(result, 5).decisionPending).toBe(false);
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-2" },
      { type: "plan-ended", status: "cancelled" },
    ]);
  });
});

describe("reconcile: steps that can never run", () => {
  it("skips pending steps downstream of a failed step that awaits no decision, then ends", () => {
    const plan = makePlan({
      steps: [{ index: 1, status: "failed", failureReason: "x" }, { index: 2 }, { index: 3 }, done(4, { waitFor: [] })],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "upstream step 1 failed" });
    expect(stepOf(result, 3)).toMatchObject({ status: "skipped", failureReason: "upstream step 1 failed" });
    // step 4 is a result step and it is done: the plan delivered something
    expect(result.plan.status).toBe("partial");
    expect(result.commands).toEqual([{ type: "plan-ended", status: "partial" }]);
  });
});
