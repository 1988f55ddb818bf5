/**
 * reconcile with similar subtasks: a step whose assignee and normalized rendered
 * input match a running step joins its run, and the run's events apply to every
 * step on it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { liveTwin, normalizeInput, stepsSharingRun } from "./single-flight.ts";
import { done, live, makePlan, NOW, run, stepOf } from "./testing/fixtures.ts";
import type { RunOutcome } from "./types.ts";

/** Steps 1 and 2 both live on run-1 with the same input. */
function sharedPlan(extra: Parameters<typeof makePlan>[0]["steps"] = [], init: { one?: object; two?: object } = {}) {
  return makePlan({
    maxParallel: 3,
    steps: [
      live(1, { waitFor: [], input: "look it up", renderedInput: "look it up", ...init.one }),
      live(2, { waitFor: [], input: "look it up", renderedInput: "look it up", liveRunId: "run-1", ...init.two }),
      ...extra,
    ],
  });
}

const ok = (usage?: RunOutcome["usage"]): RunOutcome => ({ kind: "ok", summary: "found", files: ["f.md"], usage });

describe("single-flight helpers", () => {
  it("normalizes whitespace, case and sentence punctuation, and keeps symbols that change meaning", () => {
    expect(normalizeInput("  look\n\tit   up ")).toBe("look it up");
    expect(normalizeInput("Look it up.")).toBe(normalizeInput("look it up"));
    expect(normalizeInput('Compare "Postgres", MySQL!')).toBe(normalizeInput("compare postgres mysql"));
    expect(normalizeInput("Ｃｏｍｐａｒｅ")).toBe("compare");
    expect(normalizeInput("Research C#")).not.toBe(normalizeInput("Research C"));
    expect(normalizeInput("Research C++")).not.toBe(normalizeInput("Research C"));
    expect(normalizeInput("version 3.5")).not.toBe(normalizeInput("version 35"));
  });

  it("normalizing is idempotent and ignores case and added sentence punctuation (property)", () => {
    const punctuation = fc.constantFrom(".", ",", "!", "?", ";", ":", '"', "'", "(", ")", "…");
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9#+-]{1,8}$/), { minLength: 1, maxLength: 8 }),
        fc.array(punctuation),
        (words, marks) => {
          const plain = words.join(" ");
          const reworded = words.map((word, i) => `${word.toUpperCase()}${marks[i] ?? ""}`).join("  ");
          expect(normalizeInput(reworded)).toBe(normalizeInput(plain));
          expect(normalizeInput(normalizeInput(reworded))).toBe(normalizeInput(reworded));
        },
      ),
    );
  });

  it("finds twins only among live agent steps with the same assignee and input", () => {
    const plan = makePlan({
      steps: [
        live(1, { waitFor: [], renderedInput: "x" }),
        live(2, { waitFor: [], renderedInput: "x", assignee: "editor" }),
        { index: 3, waitFor: [], renderedInput: "x", status: "done" },
        { index: 4, waitFor: [] },
      ],
    });
    expect(liveTwin(plan.steps, { index: 4, assignee: "writer" }, " x ")?.index).toBe(1);
    expect(liveTwin(plan.steps, { index: 4, assignee: "user" }, "x")).toBeUndefined();
    expect(liveTwin(plan.steps, { index: 1, assignee: "writer" }, "x")).toBeUndefined();
    expect(stepsSharingRun(sharedPlan().steps, "run-1").map((step) => step.index)).toEqual([1, 2]);
  });
});

describe("reconcile: single-flight dispatch", () => {
  it("dispatches identical ready steps once; the twin joins the run", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], input: "look it up" },
        { index: 2, waitFor: [], input: "  look   it up\n" },
      ],
    });
    const result = run(plan, { type: "plan-created" });
    expect(result.commands).toEqual([
      {
        type: "dispatch",
        stepIndex: 1,
        assignee: "writer",
        renderedInput: "look it up",
        attempt: 1,
        runId: "new-run-1",
        automaticRetry: false,
      },
    ]);
    expect(stepOf(result, 2)).toMatchObject({
      status: "in_progress",
      attempts: 1,
      startedAt: NOW,
      liveRunId: "new-run-1",
      renderedInput: "  look   it up\n",
    });
    expect(result.log).toContainEqual({ stepIndex: 2, message: expect.stringContaining("shares run new-run-1 with step 1") });
    expect(result.changedSteps).toEqual([1, 2]);
  });

  it("compares the rendered input, not the template", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [], outputSummary: "topic" }),
        { index: 2, waitFor: [1], input: "research {{step_1.output_summary}}" },
        { index: 3, waitFor: [], input: "research topic" },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(result.commands.filter((command) => command.type === "dispatch")).toHaveLength(1);
    expect(stepOf(result, 3).liveRunId).toBe(stepOf(result, 2).liveRunId);
  });

  it("joins a run that is already live, without a slot, even when max_parallel and the pool are full", () => {
    const plan = makePlan({
      maxParallel: 1,
      steps: [live(1, { waitFor: [], renderedInput: "same" }), { index: 2, waitFor: [], input: "same" }],
    });
    const capacity = { agents: { writer: { limit: 1, live: 0 } }, models: {}, agentModel: {} };
    const result = run(plan, { type: "tick" }, { capacity });
    expect(result.commands).toEqual([]);
    expect(stepOf(result, 2)).toMatchObject({ status: "in_progress", liveRunId: "run-1", attempts: 1 });
  });

  it("a shared run takes one slot, so other work still starts", () => {
    const plan = sharedPlan([{ index: 3, waitFor: [] }], {});
    const result = run({ ...plan, maxParallel: 2 }, { type: "tick" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3 })]);
  });

  it("never shares across assignees, with a user step, or with a step that is not running", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], input: "same" },
        { index: 2, waitFor: [], input: "same", assignee: "editor" },
        { index: 3, waitFor: [], input: "same", assignee: "commander" },
        done(4, { waitFor: [], renderedInput: "same" }),
      ],
    });
    const result = run(plan, { type: "plan-created" });
    expect(result.commands.map((command) => command.type === "dispatch" && command.stepIndex)).toEqual([1, 2, 3]);
    expect(new Set(result.plan.steps.slice(0, 3).map((step) => step.liveRunId)).size).toBe(3);
  });

  it("commander steps share too", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], input: "sum up", assignee: "commander" },
        { index: 2, waitFor: [], input: "sum up", assignee: "commander" },
      ],
    });
    const result = run(plan, { type: "plan-created" });
    expect(result.commands).toHaveLength(1);
    expect(stepOf(result, 2).liveRunId).toBe("new-run-1");
  });

  it("records the rendered input on dispatch and on a form", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], input: "a {{request}}" },
        { index: 2, waitFor: [], assignee: "user", input: "ok {{request}}?" },
      ],
    });
    const result = run(plan, { type: "plan-created" });
    expect(stepOf(result, 1).renderedInput).toBe("a the request");
    expect(stepOf(result, 2)).toMatchObject({ status: "blocked", renderedInput: "ok the request?" });
  });
});

describe("reconcile: results of a shared run", () => {
  it("ok completes every step on the run; usage goes to the lowest index only", () => {
    const result = run(sharedPlan(), { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: ok({ tokens: 100, cost: 0.5 }) });
    for (const index of [1, 2])
      expect(stepOf(result, index)).toMatchObject({ status: "done", outputSummary: "found", outputFiles: ["f.md"], liveRunId: null });
    expect(stepOf(result, 1).usage).toEqual({ tokens: 100, cost: 0.5 });
    expect(stepOf(result, 2).usage).toEqual({ tokens: 0, cost: 0 });
    expect(result.plan.status).toBe("completed");
  });

  it("applies to the twins even when the step it names was let go", () => {
    const plan = sharedPlan([], { one: { status: "skipped", liveRunId: null } });
    const result = run(plan, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: ok({ tokens: 7, cost: 0 }) });
    expect(stepOf(result, 1).status).toBe("skipped");
    expect(stepOf(result, 2)).toMatchObject({ status: "done", usage: { tokens: 7, cost: 0 } });
  });

  it("a failure applies each step's own on_failure", () => {
    const plan = sharedPlan([], { one: { onFailure: "continue" }, two: { onFailure: "ask_commander" } });
    const result = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "failed", transient: false, reason: "no" },
    });
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", failureReason: "no" });
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", decisionPending: true });
    expect(result.commands).toEqual([{ type: "ask-commander", stepIndex: 2, failureReason: "no" }]);
  });

  it("a transient failure spends each step's own retry budget", () => {
    const plan = sharedPlan([], { one: { maxRetries: 0, onFailure: "continue" }, two: { maxRetries: 2 } });
    const result = run(plan, { type: "run-lost", stepIndex: 1, runId: "run-1" });
    expect(stepOf(result, 1)).toMatchObject({ status: "failed" });
    expect(stepOf(result, 2)).toMatchObject({ status: "pending", transientFailures: 1, liveRunId: null });
  });

  it("twins that retry at different times meet again on one run", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], input: "same", renderedInput: "same", attempts: 1, transientFailures: 1, retryAt: NOW },
        { index: 2, waitFor: [], input: "same", renderedInput: "same", attempts: 1, transientFailures: 1, retryAt: NOW + 100 },
      ],
    });
    const first = run(plan, { type: "tick" });
    expect(first.commands).toEqual([
      expect.objectContaining({ type: "dispatch", stepIndex: 1, attempt: 2 }),
      { type: "schedule-tick", at: NOW + 100 },
    ]);
    const second = run(first.plan, { type: "tick" }, { now: NOW + 100 });
    expect(second.commands).toEqual([]);
    expect(stepOf(second, 2)).toMatchObject({ status: "in_progress", attempts: 2, liveRunId: "new-run-1" });
  });

  it("an abort by one sharer cancels the other live runs once, never the finished run, and drops the other's ask", () => {
    const plan = sharedPlan([live(3, { waitFor: [] }), live(4, { waitFor: [], liveRunId: "run-3", renderedInput: "other" })], {
      one: { onFailure: "ask_commander" },
      two: { onFailure: "abort_plan" },
    });
    const result = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "failed", transient: false, reason: "bad" },
    });
    expect(result.plan.status).toBe("failed");
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", decisionPending: false });
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", failureReason: "bad" });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-3" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("cancelling the plan cancels a shared run once", () => {
    const result = run(sharedPlan(), { type: "cancel", reason: "stop" });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-1" },
      { type: "plan-ended", status: "cancelled" },
    ]);
  });

  it("a straggler let go does not cancel a run its twin still uses", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        live(2, { waitFor: [], renderedInput: "same" }),
        live(3, { waitFor: [], renderedInput: "same", liveRunId: "run-2" }),
        { index: 4, waitFor: [1, 2], quorum: 1 },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).status).toBe("skipped");
    expect(stepOf(result, 3)).toMatchObject({ status: "in_progress", liveRunId: "run-2" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 4 })]);
  });

  it("blocked blocks every sharer; one answer resumes them all on one new run", () => {
    const blocked = run(sharedPlan(), {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "blocked", usage: { tokens: 3, cost: 0 } },
    });
    expect(blocked.plan.steps.map((step) => [step.status, step.liveRunId])).toEqual([
      ["blocked", "run-1"],
      ["blocked", "run-1"],
    ]);
    const resumed = run(blocked.plan, { type: "form-answered", stepIndex: 1, summary: "yes" });
    expect(resumed.commands).toEqual([
      { type: "resume", stepIndex: 1, answer: "yes", attempt: 1, runId: "new-run-1", previousRunId: "run-1" },
    ]);
    expect(resumed.plan.steps.map((step) => [step.status, step.liveRunId])).toEqual([
      ["in_progress", "new-run-1"],
      ["in_progress", "new-run-1"],
    ]);
    expect(resumed.plan.status).toBe("running");
  });

  it("when the answered step is let go as a straggler, its twin takes over the resumed run", () => {
    const blockedTwin = { waitFor: [] as number[], status: "blocked" as const, attempts: 1, liveRunId: "run-2", renderedInput: "same" };
    const plan = makePlan({
      status: "paused",
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, ...blockedTwin },
        { index: 3, ...blockedTwin, attempts: 2 },
        { index: 4, waitFor: [1, 2], quorum: 1 },
      ],
    });
    const result = run(plan, { type: "form-answered", stepIndex: 2, summary: "yes" });
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "not needed: quorum of step 4 reached" });
    expect(stepOf(result, 3)).toMatchObject({ status: "in_progress", liveRunId: "new-run-1" });
    expect(result.commands).toEqual([
      { type: "resume", stepIndex: 3, answer: "yes", attempt: 2, runId: "new-run-1", previousRunId: "run-2" },
      expect.objectContaining({ type: "dispatch", stepIndex: 4, runId: "new-run-2" }),
    ]);
    expect(result.log).toContainEqual({ stepIndex: 3, message: "takes over run new-run-1 from step 2" });
  });

  it("run-started for a shared run is informational; a run no step is live on is stale", () => {
    expect(run(sharedPlan(), { type: "run-started", stepIndex: 2, runId: "run-1" })).toMatchObject({ commands: [], changedSteps: [] });
    const stale = run(sharedPlan(), { type: "run-finished", stepIndex: 2, runId: "run-9", outcome: ok({ tokens: 5, cost: 5 }) });
    expect(stale).toMatchObject({ commands: [], changedSteps: [] });
    expect(stale.log[0].message).toContain("stale");
  });
});
