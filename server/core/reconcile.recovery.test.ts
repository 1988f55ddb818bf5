/** Reconcile: a member stops one step (stop-step), and retries a step after the plan ended (reopen). */
import { describe, expect, it } from "vitest";
import { done, live, makePlan, run, stepOf } from "./testing/fixtures.ts";
import type { OnFailure } from "./types.ts";

/** Step 1 and 2 run side by side; step 3 waits for step 1 only. */
function sideBySide(onFailure: OnFailure) {
  return makePlan({
    steps: [
      live(1, { waitFor: [], onFailure }),
      live(2, { waitFor: [] }),
      { index: 3, waitFor: [1], input: "use {{step_1.output_summary}}" },
    ],
  });
}

describe("reconcile: stop-step", () => {
  it("continue: only that step fails, its run is cancelled, the other step runs on and the dependant proceeds", () => {
    const result = run(sideBySide("continue"), { type: "stop-step", stepIndex: 1, by: "Ada" });
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", failureReason: "stopped by Ada", retryAt: null, liveRunId: null });
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", liveRunId: "run-2" });
    expect(result.plan.status).toBe("running");
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-1" },
      expect.objectContaining({ type: "dispatch", stepIndex: 3, renderedInput: "use (step 1 has no output)" }),
    ]);
  });

  it("abort_plan: the plan fails and every other run is cancelled", () => {
    const result = run(sideBySide("abort_plan"), { type: "stop-step", stepIndex: 1, by: "Ada" });
    expect(result.plan.status).toBe("failed");
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", failureReason: "stopped by Ada" });
    expect(stepOf(result, 2).status).toBe("skipped");
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-1" },
      { type: "cancel-run", runId: "run-2" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("ask_commander: the commander is asked; a stop is never retried on its own, whatever budget is left", () => {
    const result = run(sideBySide("ask_commander"), { type: "stop-step", stepIndex: 1, by: "Ada" });
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", decisionPending: true, transientFailures: 0 });
    expect(result.commands).toContainEqual({ type: "ask-commander", stepIndex: 1, failureReason: "stopped by Ada" });
    expect(result.commands.some((command) => command.type === "schedule-tick")).toBe(false);
  });

  it("a run shared with a twin goes on for the twin", () => {
    const plan = makePlan({
      steps: [live(1, { waitFor: [], onFailure: "continue" }), live(2, { waitFor: [], liveRunId: "run-1" })],
    });
    const result = run(plan, { type: "stop-step", stepIndex: 1, by: "Ada" });
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", liveRunId: "run-1" });
    expect(result.commands).toEqual([]);
  });

  it("a step without a live run, or of an ended plan, cannot be stopped", () => {
    const plan = makePlan({ steps: [done(1, { waitFor: [] }), { index: 2, waitFor: [], retryAt: 2_000_000 }], maxParallel: 1 });
    expect(run(plan, { type: "stop-step", stepIndex: 1, by: "Ada" }).ignored).toBe(
      "step 1 is done; only a step with a live run can be stopped",
    );
    expect(run(plan, { type: "stop-step", stepIndex: 2, by: "Ada" }).ignored).toBe(
      "step 2 is pending; only a step with a live run can be stopped",
    );
    const ended = makePlan({ status: "failed", steps: [{ index: 1, status: "failed" }] });
    expect(run(ended, { type: "stop-step", stepIndex: 1, by: "Ada" }).ignored).toBe("the plan is failed; stop-step no longer applies");
  });
});

describe("reconcile: reopen after the plan ended", () => {
  it("a failed step and the steps skipped because of it go back to pending; the plan runs again", () => {
    const plan = makePlan({
      status: "failed",
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [1], status: "failed", failureReason: "broken", transientFailures: 2, attempts: 3 },
        { index: 3, waitFor: [2], status: "skipped", failureReason: "upstream step 2 failed" },
        { index: 4, waitFor: [3], status: "skipped", failureReason: "upstream step 2 failed" },
        { index: 5, waitFor: [], status: "skipped", failureReason: "plan aborted" },
      ],
    });
    const result = run(plan, { type: "reopen", stepIndex: 2 });
    expect(result.ignored).toBeUndefined();
    expect(result.plan.status).toBe("running");
    expect(stepOf(result, 1).status).toBe("done");
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", transientFailures: 0, failureReason: null, attempts: 4 });
    expect(stepOf(result, 3)).toMatchObject({ status: "pending", failureReason: null });
    expect(stepOf(result, 4).status).toBe("pending");
    // not a dependant of step 2: it stays as it ended
    expect(stepOf(result, 5)).toMatchObject({ status: "skipped", failureReason: "plan aborted" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
    expect(result.log.some((line) => line.message.startsWith("plan reopened (it was failed): steps 2, 3, 4"))).toBe(true);
  });

  it("a skipped step of a cancelled plan can be retried", () => {
    const plan = makePlan({
      status: "cancelled",
      steps: [done(1, { waitFor: [] }), { index: 2, status: "skipped", failureReason: "stop" }],
    });
    const result = run(plan, { type: "reopen", stepIndex: 2 });
    expect(result.plan.status).toBe("running");
    expect(stepOf(result, 2).status).toBe("in_progress");
  });

  it("refuses what it cannot reopen, saying why", () => {
    const ended = makePlan({
      status: "partial",
      steps: [
        { index: 1, waitFor: [], status: "failed", onFailure: "abort_plan" },
        { index: 2, waitFor: [1], status: "skipped" },
        done(3, { waitFor: [] }),
      ],
    });
    expect(run(ended, { type: "reopen", stepIndex: 3 }).ignored).toBe("step 3 is done; only a failed or skipped step can be retried");
    expect(run(ended, { type: "reopen", stepIndex: 2 }).ignored).toBe("step 2 waits for step 1, which failed; retry step 1 first");
    expect(run(ended, { type: "reopen", stepIndex: 9 }).ignored).toBe("step 9 does not exist in this plan");
    const running = makePlan({ steps: [{ index: 1, status: "failed", waitFor: [] }, live(2, { waitFor: [] })] });
    expect(run(running, { type: "reopen", stepIndex: 1 }).ignored).toBe(
      "the plan is running; retry or skip the step instead of reopening the plan",
    );
  });

  it("a step that failed under continue lets the plan end partial, and reopening it runs it again", () => {
    const plan = makePlan({ steps: [live(1, { waitFor: [], onFailure: "continue" }), live(2, { waitFor: [] })] });
    let result = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "failed", transient: false, reason: "x" },
    });
    result = run(result.plan, { type: "run-finished", stepIndex: 2, runId: "run-2", outcome: { kind: "ok", summary: "s", files: [] } });
    expect(result.plan.status).toBe("partial");
    expect(stepOf(result, 1).status).toBe("failed");
    result = run(result.plan, { type: "reopen", stepIndex: 1 });
    expect(result.plan.status).toBe("running");
    const rerun = stepOf(result, 1).liveRunId!;
    result = run(result.plan, { type: "run-finished", stepIndex: 1, runId: rerun, outcome: { kind: "ok", summary: "t", files: [] } });
    expect(result.plan.status).toBe("completed");
    expect(result.commands).toEqual([{ type: "plan-ended", status: "completed" }]);
  });
});

describe("reconcile: a member's retry of a for_each item", () => {
  it("is refused once its for_each step has ended: the list was collected without it", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [], outputSummary: "a" }),
        {
          index: 2,
          waitFor: [1],
          status: "done",
          forEach: { from: 1, field: "output_lines", maxParallel: null },
          expansion: { children: [3], items: ["a"] },
        },
        { index: 3, waitFor: [1], parentIndex: 2, status: "failed", onFailure: "continue", failureReason: "x" },
        live(4, { waitFor: [] }),
      ],
    });
    expect(run(plan, { type: "retry-step", stepIndex: 3 }).ignored).toBe(
      "step 3 is an item of for_each step 2, which is done; retry step 2",
    );
  });
});

describe("reconcile: taint after a continue failure", () => {
  it("a dependant that read a failed step's placeholder stays trusted, even if that step is retried to untrusted output meanwhile", () => {
    const plan = makePlan({
      steps: [live(1, { waitFor: [], onFailure: "continue" }), { index: 2, waitFor: [1], input: "use {{step_1.output_summary}}" }],
    });
    let result = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "failed", transient: false, reason: "x" },
    });
    expect(stepOf(result, 2).renderedInput).toBe("use (step 1 has no output)");
    // a member retries step 1 while step 2 runs; it comes back with untrusted output
    result = run(result.plan, { type: "retry-step", stepIndex: 1 }, { newRunId: () => "again" });
    result = run(result.plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "again",
      outcome: { kind: "ok", summary: "", files: [], untrusted: true },
    });
    expect(stepOf(result, 1)).toMatchObject({ status: "done", outputUntrusted: true });
    const second = stepOf(result, 2).liveRunId!;
    result = run(result.plan, { type: "run-finished", stepIndex: 2, runId: second, outcome: { kind: "ok", summary: "fine", files: [] } });
    // it never read step 1's text: Baton's placeholder is not outside content
    expect(stepOf(result, 2)).toMatchObject({ status: "done", outputUntrusted: false });
  });
});

describe("reconcile: reopening a quorum step", () => {
  it("brings back the stragglers it let go, so it reaches its quorum again by work done", () => {
    const plan = makePlan({
      status: "failed",
      steps: [
        { index: 1, waitFor: [], status: "failed", onFailure: "continue", failureReason: "broken" },
        { index: 2, waitFor: [], status: "skipped", failureReason: "not needed: quorum of step 3 reached" },
        { index: 3, waitFor: [1, 2], quorum: 1, status: "skipped", failureReason: "plan aborted: step 4 failed" },
        { index: 4, waitFor: [], status: "failed", onFailure: "abort_plan", failureReason: "x" },
      ],
    });
    const result = run(plan, { type: "reopen", stepIndex: 1 });
    // step 3 waits again: neither of its dependencies has done anything yet
    expect(stepOf(result, 3).status).toBe("pending");
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", failureReason: null });
    expect(stepOf(result, 1).status).toBe("in_progress");
  });
});

describe("reconcile: reopening past a spent budget", () => {
  it("is refused: the step would be refused again at once", () => {
    const plan = makePlan({
      status: "failed",
      budget: { maxTokens: 100, maxCost: null },
      steps: [done(1, { waitFor: [], usage: { tokens: 100, cost: 0 } }), { index: 2, waitFor: [], status: "failed", failureReason: "x" }],
    });
    expect(run(plan, { type: "reopen", stepIndex: 2 }).ignored).toMatch(/^step 2 cannot run again: .*; re-run the plan instead$/);
  });
});

describe("reconcile: a member retries a continue failure that others went past", () => {
  it("a quorum step waiting again does not count the stragglers it let go: it waits for the retried step", () => {
    // step 4 started on 1 done and 2 failed under continue, let 3 go, then failed transiently
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [], status: "failed", onFailure: "continue", failureReason: "stopped by Ada" },
        { index: 3, waitFor: [], status: "skipped", failureReason: "not needed: quorum of step 4 reached" },
        { index: 4, waitFor: [1, 2, 3], quorum: 2, transientFailures: 1, attempts: 1 },
      ],
    });
    const result = run(plan, { type: "retry-step", stepIndex: 2 }, { newRunId: () => "again" });
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", liveRunId: "again" });
    expect(stepOf(result, 3).status).toBe("skipped");
    expect(stepOf(result, 4).status).toBe("pending");
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });

  it("is refused while a for_each step that made its items without it can still collect again", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [], outputSummary: "a" }),
        { index: 2, waitFor: [], status: "failed", onFailure: "continue", failureReason: "x" },
        {
          index: 3,
          waitFor: [1, 2],
          status: "failed",
          failureReason: "1 of 1 items failed (steps 4)",
          forEach: { from: 1, field: "output_lines", maxParallel: null },
          expansion: { children: [4], items: ["a"] },
        },
        { index: 4, waitFor: [1], parentIndex: 3, status: "failed", failureReason: "broken" },
        live(5, { waitFor: [] }),
      ],
    });
    const refusal = "for_each step 3 made its items without step 2; retry step 3 or re-run the plan";
    expect(run(plan, { type: "retry-step", stepIndex: 2 }).ignored).toBe(refusal);
    // the for_each step itself can be retried: its items read no step 2 output
    expect(stepOf(run(plan, { type: "retry-step", stepIndex: 3 }), 4).status).toBe("in_progress");
    const ended = makePlan({ status: "partial", steps: plan.steps.filter((step) => step.index !== 5) });
    expect(run(ended, { type: "reopen", stepIndex: 2 }).ignored).toBe(refusal);
  });
});

describe("reconcile: reopening what a for_each step went past", () => {
  const forEach = { from: 1, field: "output_lines" as const, maxParallel: null };

  it("is refused when a straggler to bring back had made its items (making them again is a re-run)", () => {
    const plan = makePlan({
      status: "failed",
      steps: [
        done(1, { waitFor: [], outputSummary: "a" }),
        {
          index: 2,
          waitFor: [1],
          status: "skipped",
          failureReason: "not needed: quorum of step 4 reached",
          forEach,
          expansion: { children: [6], items: ["a"] },
        },
        done(3, { waitFor: [] }),
        { index: 4, waitFor: [2, 3], quorum: 1, status: "failed", failureReason: "broken" },
        { index: 5, waitFor: [4], status: "skipped", failureReason: "upstream step 4 failed" },
        { index: 6, waitFor: [1], parentIndex: 2, status: "skipped", failureReason: "for_each step 2 was skipped" },
      ],
    });
    expect(run(plan, { type: "reopen", stepIndex: 4 }).ignored).toBe("step 2, which step 4 let go, had made its items; re-run the plan");
  });

  it("is refused when a straggler to bring back is an item of a for_each step (it comes back only with its list)", () => {
    // step 4 was appended by the commander, waiting for item 3 of for_each step 2
    const plan = makePlan({
      status: "failed",
      steps: [
        done(1, { waitFor: [], outputSummary: "a" }),
        { index: 2, waitFor: [1], status: "done", forEach, expansion: { children: [3], items: ["a"] } },
        { index: 3, waitFor: [1], parentIndex: 2, status: "skipped", failureReason: "not needed: quorum of step 4 reached" },
        { index: 4, waitFor: [1, 3], quorum: 1, status: "failed", failureReason: "broken" },
      ],
    });
    expect(run(plan, { type: "reopen", stepIndex: 4 }).ignored).toBe(
      "step 3, which step 4 let go, is an item of for_each step 2; re-run the plan",
    );
  });

  it("is refused when a step it brings back was gone past by a for_each step that can collect again", () => {
    // step 3 was skipped because step 2 failed; step 4 read step 3 as optional and made its items
    const plan = makePlan({
      status: "failed",
      steps: [
        done(1, { waitFor: [], outputSummary: "a" }),
        { index: 2, waitFor: [], status: "failed", failureReason: "broken" },
        { index: 3, waitFor: [2], status: "skipped", failureReason: "upstream step 2 failed" },
        {
          index: 4,
          waitFor: [1, 3],
          optionalWaitFor: [3],
          status: "failed",
          failureReason: "1 of 1 items failed (steps 5)",
          forEach,
          expansion: { children: [5], items: ["a"] },
        },
        { index: 5, waitFor: [1], parentIndex: 4, status: "failed", failureReason: "broken" },
      ],
    });
    expect(run(plan, { type: "reopen", stepIndex: 2 }).ignored).toBe(
      "for_each step 4 made its items without step 3; retry step 4 or re-run the plan",
    );
    // the for_each step itself reopens: what it read has not changed
    const result = run(plan, { type: "reopen", stepIndex: 4 });
    expect(result.ignored).toBeUndefined();
    expect(stepOf(result, 5).status).toBe("in_progress");
  });
});
