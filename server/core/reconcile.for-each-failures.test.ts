/**
 * reconcile with for_each steps when things go wrong: a child's failure under each
 * on_failure policy, the parent's own policy once its children have ended, commander
 * and member decisions on the parent, budget refusals of children, cancel, and a
 * quorum releasing a collecting parent.
 */
import { describe, expect, it } from "vitest";
import { done, live, makePlan, NOW, run, runIds, stepOf } from "./testing/fixtures.ts";
import type { CommanderDecision, OnFailure, PlanState, RunOutcome } from "./types.ts";

/**
 * Step 1 listed a, b, c; step 2 (for_each) expanded into children 4, 5, 6, all live
 * on run-4..6; step 3 waits for step 2.
 */
function expandedPlan(onFailure: OnFailure, extra: Parameters<typeof makePlan>[0]["steps"] = []): PlanState {
  return makePlan({
    steps: [
      done(1, { waitFor: [], outputSummary: "a\nb\nc" }),
      {
        index: 2,
        waitFor: [1],
        input: "do {{item}}",
        onFailure,
        status: "in_progress",
        startedAt: NOW - 20,
        forEach: { from: 1, field: "output_lines", maxParallel: null },
        expansion: { children: [4, 5, 6], items: ["a", "b", "c"] },
      },
      { index: 3, waitFor: [2], input: "use {{step_2.output_summary}}" },
      ...[4, 5, 6].map((index, i) =>
        live(index, { waitFor: [1], parentIndex: 2, onFailure, input: `do ${"abc"[i]}`, renderedInput: `do ${"abc"[i]}` }),
      ),
      ...extra,
    ],
  });
}

let calls = 0;
function finish(plan: PlanState, index: number, outcome: RunOutcome) {
  return run(
    plan,
    { type: "run-finished", stepIndex: index, runId: stepOf(plan, index).liveRunId!, outcome },
    { newRunId: runIds(`call-${++calls}`) },
  );
}
const ok = (summary: string): RunOutcome => ({ kind: "ok", summary, files: [] });
const broken: RunOutcome = { kind: "failed", transient: false, reason: "broken" };
const decide = (plan: PlanState, stepIndex: number, decision: CommanderDecision) =>
  run(plan, { type: "commander-decision", stepIndex, decision }, { newRunId: runIds(`call-${++calls}`) });

/** Child 5 fails for good, children 4 and 6 succeed. */
function oneItemFailed(onFailure: OnFailure) {
  let plan = expandedPlan(onFailure);
  plan = finish(plan, 5, broken).plan;
  plan = finish(plan, 4, ok("A")).plan;
  return finish(plan, 6, ok("C"));
}

describe("for_each: a child fails", () => {
  it("abort_plan (inherited): the plan aborts as usual; the collector gets no cancel-run", () => {
    const result = finish(expandedPlan("abort_plan"), 5, broken);
    expect(result.plan.status).toBe("failed");
    expect(stepOf(result, 5)).toMatchObject({ status: "failed", failureReason: "broken" });
    for (const index of [2, 3, 4, 6])
      expect(stepOf(result, index)).toMatchObject({ status: "skipped", failureReason: "plan aborted: step 5 failed" });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-4" },
      { type: "cancel-run", runId: "run-6" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("continue (inherited): the child stays failed, the item reads (failed: …), the parent is done", () => {
    const result = oneItemFailed("continue");
    expect(stepOf(result, 5)).toMatchObject({ status: "failed", failureReason: "broken", decisionPending: false });
    expect(stepOf(result, 2)).toMatchObject({ status: "done", outputSummary: "1. a: A\n2. b: (failed: broken)\n3. c: C" });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3 })]);
  });

  it("ask_commander (inherited): the child fails without asking; the parent asks once when all have ended", () => {
    let plan = finish(expandedPlan("ask_commander"), 5, broken).plan;
    expect(stepOf(plan, 5)).toMatchObject({ status: "failed", decisionPending: false, failureReason: "broken" });
    expect(stepOf(plan, 2).status).toBe("in_progress");
    plan = finish(plan, 4, ok("A")).plan;
    const result = finish(plan, 6, ok("C"));
    const reason = "1 of 3 items failed (steps 5)";
    expect(stepOf(result, 2)).toMatchObject({
      status: "failed",
      decisionPending: true,
      failureReason: reason,
      outputSummary: "1. a: A\n2. b: (failed: broken)\n3. c: C",
    });
    expect(result.commands).toEqual([{ type: "ask-commander", stepIndex: 2, failureReason: reason }]);
    expect(stepOf(result, 3).status).toBe("pending");
    expect(result.plan.status).toBe("running");
  });

  it("a transient child failure retries the child as usual", () => {
    const result = run(expandedPlan("ask_commander"), { type: "run-lost", stepIndex: 4, runId: "run-4" });
    expect(stepOf(result, 4)).toMatchObject({ status: "pending", transientFailures: 1 });
    expect(stepOf(result, 2).status).toBe("in_progress");
  });

  it("a child refused for its budget asks the commander itself; the parent waits for that decision", () => {
    const plan = makePlan({
      budget: { maxTokens: 100, maxCost: null },
      steps: [
        done(1, { waitFor: [], usage: { tokens: 100, cost: 0 } }),
        {
          index: 2,
          waitFor: [1],
          status: "in_progress",
          forEach: { from: 1, field: "output_lines", maxParallel: null },
          expansion: { children: [3], items: ["a"] },
        },
        { index: 3, waitFor: [1], parentIndex: 2 },
      ],
    });
    let result = run(plan, { type: "tick" });
    expect(stepOf(result, 3)).toMatchObject({ status: "failed", decisionPending: true });
    expect(result.commands).toEqual([{ type: "ask-commander", stepIndex: 3, failureReason: expect.stringContaining("budget exhausted") }]);
    expect(stepOf(result, 2).status).toBe("in_progress");
    result = decide(result.plan, 3, { kind: "skip" });
    expect(stepOf(result, 2)).toMatchObject({ status: "done", outputSummary: "1. a: (skipped)" });
  });
});

describe("for_each: the parent's own on_failure once its children have ended", () => {
  /** A parent whose children inherited ask_commander (failure deferred) but whose own policy differs. */
  function collectWith(onFailure: OnFailure) {
    let plan = expandedPlan("ask_commander");
    plan = { ...plan, steps: plan.steps.map((step) => (step.index === 2 ? { ...step, onFailure } : step)) };
    plan = finish(plan, 5, broken).plan;
    plan = finish(plan, 4, ok("A")).plan;
    return finish(plan, 6, ok("C"));
  }

  it("continue: the parent fails, its failed child stays failed, and the plan goes on without its output", () => {
    const result = collectWith("continue");
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", failureReason: "1 of 3 items failed (steps 5)", decisionPending: false });
    expect(stepOf(result, 5)).toMatchObject({ status: "failed", failureReason: "broken" });
    expect(result.commands).toEqual([
      expect.objectContaining({ type: "dispatch", stepIndex: 3, renderedInput: "use (step 2 has no output)" }),
    ]);
  });

  it("abort_plan: the plan fails", () => {
    const result = collectWith("abort_plan");
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", failureReason: "1 of 3 items failed (steps 5)" });
    expect(stepOf(result, 3).status).toBe("skipped");
    expect(result.commands).toEqual([{ type: "plan-ended", status: "failed" }]);
  });
});

describe("for_each: decisions on a failed parent", () => {
  it("retry re-runs only the failed children, then collects again", () => {
    let result = decide(oneItemFailed("ask_commander").plan, 2, { kind: "retry" });
    expect(stepOf(result, 2)).toMatchObject({
      status: "in_progress",
      decisionPending: false,
      failureReason: null,
      decisionCount: 1,
      outputSummary: null,
      liveRunId: null,
    });
    expect(stepOf(result, 4).status).toBe("done");
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 5, renderedInput: "do b", attempt: 2 })]);
    expect(result.log).toContainEqual({ stepIndex: 2, message: "for_each: re-runs the failed items (steps 5)" });
    result = finish(result.plan, 5, ok("B"));
    expect(stepOf(result, 2)).toMatchObject({ status: "done", outputSummary: "1. a: A\n2. b: B\n3. c: C" });
  });

  it("retry with new input and assignee re-applies the new template to the failed items only", () => {
    const result = decide(oneItemFailed("ask_commander").plan, 2, {
      kind: "retry",
      input: "redo {{item}} #{{item_index}}",
      assignee: "editor",
    });
    expect(stepOf(result, 2)).toMatchObject({ input: "redo {{item}} #{{item_index}}", assignee: "editor" });
    expect(stepOf(result, 5)).toMatchObject({ input: "redo b #2", assignee: "editor" });
    expect(stepOf(result, 4)).toMatchObject({ input: "do a", assignee: "writer" });
    expect(result.commands).toEqual([
      expect.objectContaining({ type: "dispatch", stepIndex: 5, assignee: "editor", renderedInput: "redo b #2" }),
    ]);
  });

  it("a member's retry of the parent does the same", () => {
    const result = run(oneItemFailed("ask_commander").plan, { type: "retry-step", stepIndex: 2 });
    expect(stepOf(result, 2).status).toBe("in_progress");
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 5 })]);
  });

  it("skip skips the parent and its failed children; the plan ends partial", () => {
    let result = decide(oneItemFailed("ask_commander").plan, 2, { kind: "skip", reason: "good enough" });
    expect(stepOf(result, 2)).toMatchObject({
      status: "skipped",
      failureReason: expect.stringMatching(/^the commander skipped it: good enough \(it had failed: 1 of \d+ items failed/),
    });
    expect(stepOf(result, 5)).toMatchObject({ status: "skipped", failureReason: "broken" });
    result = finish(result.plan, 3, ok("used"));
    expect(result.plan.status).toBe("partial");
  });

  it("abort ends the plan", () => {
    const result = decide(oneItemFailed("ask_commander").plan, 2, { kind: "abort", reason: "no" });
    expect(result.plan.status).toBe("failed");
    expect(stepOf(result, 3).status).toBe("skipped");
  });
});

describe("for_each: cancel and release", () => {
  it("cancel while children run: every open step skipped, children's runs cancelled, none for the collector", () => {
    const result = run(expandedPlan("ask_commander"), { type: "cancel", reason: "stop" });
    expect(result.plan.status).toBe("cancelled");
    for (const index of [2, 3, 4, 5, 6]) expect(stepOf(result, index)).toMatchObject({ status: "skipped", failureReason: "stop" });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-4" },
      { type: "cancel-run", runId: "run-5" },
      { type: "cancel-run", runId: "run-6" },
      { type: "plan-ended", status: "cancelled" },
    ]);
  });

  it("cancel right after an expansion: only the child's run is cancelled", () => {
    const expanding = makePlan({
      steps: [
        live(1, { waitFor: [] }),
        { index: 2, waitFor: [1], input: "{{item}}", forEach: { from: 1, field: "output_lines", maxParallel: 1 } },
      ],
    });
    const expanded = finish(expanding, 1, ok("x\ny"));
    expect(expanded.plan.steps.map((step) => step.status)).toEqual(["done", "in_progress", "in_progress", "pending"]);
    const result = run(expanded.plan, { type: "cancel", reason: "stop" });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: stepOf(expanded, 3).liveRunId },
      { type: "plan-ended", status: "cancelled" },
    ]);
    expect(result.plan.steps.map((step) => step.status)).toEqual(["done", "skipped", "skipped", "skipped"]);
  });

  it("a quorum that no longer needs a collecting parent skips it and its open children", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        {
          index: 2,
          waitFor: [1],
          status: "in_progress",
          forEach: { from: 1, field: "output_lines", maxParallel: null },
          expansion: { children: [5, 6], items: ["a", "b"] },
        },
        live(3, { waitFor: [] }),
        { index: 4, waitFor: [2, 3], quorum: 1 },
        done(5, { waitFor: [1], parentIndex: 2 }),
        live(6, { waitFor: [1], parentIndex: 2 }),
      ],
    });
    const result = finish(plan, 3, ok("first"));
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "not needed: quorum of step 4 reached" });
    expect(stepOf(result, 5).status).toBe("done");
    expect(stepOf(result, 6)).toMatchObject({ status: "skipped", failureReason: "for_each step 2 was skipped", liveRunId: null });
    expect(result.commands).toEqual([{ type: "cancel-run", runId: "run-6" }, expect.objectContaining({ type: "dispatch", stepIndex: 4 })]);
  });
});
