/**
 * reconcile with edges that carry meaning: optional dependencies, quorum, the
 * "can never run" cascade under both, and letting stragglers go once a quorum holds.
 */
import { describe, expect, it } from "vitest";
import { done, live, makePlan, NOW, run, stepOf } from "./testing/fixtures.ts";
import type { PlanCommand } from "./types.ts";

function dispatched(commands: PlanCommand[]): number[] {
  return commands.flatMap((command) => (command.type === "dispatch" ? [command.stepIndex] : []));
}

describe("reconcile: optional dependencies", () => {
  it("dispatches past an optional dependency that failed for good, rendering it as having no output", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [], status: "failed", failureReason: "404", attempts: 1 },
        { index: 3, waitFor: [1, 2], optionalWaitFor: [2], input: "{{step_1.output_summary}} + {{step_2.output_summary}}" },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(result.commands[0]).toMatchObject({ type: "dispatch", stepIndex: 3, renderedInput: "summary 1 + (step 2 has no output)" });
    expect(stepOf(result, 3)).toMatchObject({ status: "in_progress", renderedInput: "summary 1 + (step 2 has no output)" });
  });

  it("waits while the optional dependency awaits a decision; a skip then lets it proceed", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], status: "failed", decisionPending: true, failureReason: "x", attempts: 1 },
        { index: 2, waitFor: [1], optionalWaitFor: [1], input: "{{step_1.output_summary}}" },
      ],
    });
    expect(dispatched(run(plan, { type: "tick" }).commands)).toEqual([]);
    const result = run(plan, { type: "commander-decision", stepIndex: 1, decision: { kind: "skip" } });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2, renderedInput: "(step 1 was skipped)" })]);
  });

  it("a failed optional dependency does not doom its consumer, a failed required one does", () => {
    const plan = makePlan({
      maxParallel: 1,
      steps: [
        { index: 1, waitFor: [], status: "failed", failureReason: "x" },
        live(2, { waitFor: [] }),
        { index: 3, waitFor: [1, 2], optionalWaitFor: [1] },
        { index: 4, waitFor: [1, 2], optionalWaitFor: [2] },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 3).status).toBe("pending");
    expect(stepOf(result, 4)).toMatchObject({ status: "skipped", failureReason: "upstream step 1 failed" });
  });

  it("the cascade follows chains, and a doomed optional dependency only ends, it does not doom", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], status: "failed", failureReason: "x" },
        { index: 2, waitFor: [1] },
        { index: 3, waitFor: [2] },
        { index: 4, waitFor: [3], optionalWaitFor: [3] },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).failureReason).toBe("upstream step 1 failed");
    expect(stepOf(result, 3).failureReason).toBe("upstream step 1 failed");
    expect(stepOf(result, 4).status).toBe("in_progress");
  });
});

describe("reconcile: quorum", () => {
  const researchers = [live(1, { waitFor: [] }), live(2, { waitFor: [] }), live(3, { waitFor: [] })];

  it("dispatches as soon as k dependencies are done, skips the stragglers and cancels their runs", () => {
    const plan = makePlan({
      maxParallel: 5,
      steps: [done(1, { waitFor: [] }), ...researchers.slice(1), { index: 4, waitFor: [1, 2, 3], quorum: 2 }],
    });
    const result = run(plan, { type: "run-finished", stepIndex: 2, runId: "run-2", outcome: { kind: "ok", summary: "b", files: [] } });
    expect(stepOf(result, 3)).toMatchObject({
      status: "skipped",
      failureReason: "not needed: quorum of step 4 reached",
      liveRunId: null,
      endedAt: NOW,
    });
    expect(result.commands).toEqual([{ type: "cancel-run", runId: "run-3" }, expect.objectContaining({ type: "dispatch", stepIndex: 4 })]);
    expect(result.log).toContainEqual({ stepIndex: 3, message: "skipped: not needed: quorum of step 4 reached" });
  });

  it("releases a straggler that only a released straggler waited for, in the same reconcile", () => {
    // step 2 is kept at first because step 3 waits for it; once step 3 is released, nothing does
    const plan = makePlan({
      maxParallel: 1,
      steps: [done(1, { waitFor: [] }), { index: 2, waitFor: [] }, { index: 3, waitFor: [2] }, { index: 4, waitFor: [1, 2, 3], quorum: 1 }],
    });
    const result = run(plan, { type: "tick" });
    for (const index of [2, 3])
      expect(stepOf(result, index)).toMatchObject({ status: "skipped", failureReason: "not needed: quorum of step 4 reached" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 4 })]);
  });

  it("waits below the quorum", () => {
    const plan = makePlan({ steps: [...researchers, { index: 4, waitFor: [1, 2, 3], quorum: 2 }] });
    const result = run(plan, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: { kind: "ok", summary: "a", files: [] } });
    expect(stepOf(result, 4).status).toBe("pending");
    expect(result.commands).toEqual([]);
  });

  it("skips a pending straggler without a cancel, and the freed slot serves the quorum step", () => {
    const plan = makePlan({
      maxParallel: 1,
      steps: [live(1, { waitFor: [] }), { index: 2, waitFor: [] }, { index: 3, waitFor: [1, 2], quorum: 1 }],
    });
    const result = run(plan, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: { kind: "ok", summary: "a", files: [] } });
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "not needed: quorum of step 3 reached" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3 })]);
  });

  it("keeps a straggler that another open step waits for, or that is blocked or awaits a decision", () => {
    const plan = makePlan({
      maxParallel: 5,
      steps: [
        done(1, { waitFor: [] }),
        live(2, { waitFor: [] }),
        { index: 3, waitFor: [], status: "failed", decisionPending: true },
        { index: 4, waitFor: [1, 2, 3], quorum: 1 },
        { index: 5, waitFor: [2] },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).status).toBe("in_progress");
    expect(stepOf(result, 3)).toMatchObject({ status: "failed", decisionPending: true });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 4 })]);
    const paused = makePlan({
      status: "paused",
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [], status: "blocked", liveRunId: "run-2" },
        { index: 3, waitFor: [1, 2], quorum: 1 },
      ],
    });
    expect(stepOf(run(paused, { type: "tick" }), 2).status).toBe("blocked");
  });

  it("a straggler needed by a step awaiting a decision is kept (a retry would read it)", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        live(2, { waitFor: [] }),
        { index: 3, waitFor: [1, 2], quorum: 1 },
        { index: 4, waitFor: [2], status: "failed", decisionPending: true },
      ],
    });
    expect(stepOf(run(plan, { type: "tick" }), 2).status).toBe("in_progress");
  });

  it("lets stragglers go even while the plan is paused, dispatching nothing", () => {
    const plan = makePlan({
      status: "paused",
      steps: [
        done(1, { waitFor: [] }),
        live(2, { waitFor: [] }),
        { index: 3, waitFor: [1, 2], quorum: 1 },
        { index: 4, waitFor: [], status: "blocked", assignee: "user" },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).status).toBe("skipped");
    expect(result.commands).toEqual([{ type: "cancel-run", runId: "run-2" }]);
    expect(result.plan.status).toBe("paused");
  });

  it("withdraws the resume of a straggler answered after its quorum was reached", () => {
    const plan = makePlan({
      status: "paused",
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [], status: "blocked", attempts: 1, liveRunId: "run-2" },
        { index: 3, waitFor: [1, 2], quorum: 1 },
      ],
    });
    const result = run(plan, { type: "form-answered", stepIndex: 2, summary: "yes" });
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "not needed: quorum of step 3 reached", liveRunId: null });
    // no resume and no cancel-run: the run that would have resumed never exists
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3, runId: "new-run-2" })]);
  });

  it("skipped dependencies count toward the quorum", () => {
    const plan = makePlan({
      steps: [{ index: 1, waitFor: [], status: "skipped" }, live(2, { waitFor: [] }), { index: 3, waitFor: [1, 2], quorum: 1 }],
    });
    expect(dispatched(run(plan, { type: "tick" }).commands)).toEqual([3]);
  });

  it("is doomed only when fewer than k dependencies can still succeed", () => {
    const failed = { status: "failed" as const, failureReason: "x", waitFor: [] as number[] };
    const reachable = makePlan({
      steps: [{ index: 1, ...failed }, live(2, { waitFor: [] }), live(3, { waitFor: [] }), { index: 4, waitFor: [1, 2, 3], quorum: 2 }],
    });
    expect(stepOf(run(reachable, { type: "tick" }), 4).status).toBe("pending");
    const lost = makePlan({
      steps: [{ index: 1, ...failed }, { index: 2, ...failed }, live(3, { waitFor: [] }), { index: 4, waitFor: [1, 2, 3], quorum: 2 }],
    });
    expect(stepOf(run(lost, { type: "tick" }), 4)).toMatchObject({
      status: "skipped",
      failureReason: "upstream step 1 failed (quorum of 2 can no longer be reached)",
    });
  });

  it("counts dependencies doomed in the same pass as lost", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], status: "failed", failureReason: "x" },
        { index: 2, waitFor: [1] },
        live(3, { waitFor: [] }),
        { index: 4, waitFor: [2, 3], quorum: 2 },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).status).toBe("skipped");
    expect(stepOf(result, 4)).toMatchObject({ status: "skipped", failureReason: expect.stringContaining("upstream step 1 failed") });
  });

  it("lets stragglers go only while the quorum step waits to start; a plan without them completes", () => {
    // step 2 was still needed elsewhere when step 3 started; once 3 runs, nobody lets 2 go
    const plan = makePlan({ steps: [done(1, { waitFor: [] }), live(2, { waitFor: [] }), live(3, { waitFor: [1, 2], quorum: 1 })] });
    const result = run(plan, { type: "run-finished", stepIndex: 3, runId: "run-3", outcome: { kind: "ok", summary: "s", files: [] } });
    expect(stepOf(result, 2).status).toBe("in_progress");
    const settled = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [], status: "skipped", failureReason: "not needed: quorum of step 3 reached" },
        live(3, { waitFor: [1, 2], quorum: 1 }),
      ],
    });
    expect(
      run(settled, { type: "run-finished", stepIndex: 3, runId: "run-3", outcome: { kind: "ok", summary: "s", files: [] } }).plan.status,
    ).toBe("completed");
  });
});
