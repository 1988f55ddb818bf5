/**
 * reconcile with budgets: usage accumulates from run outcomes, and the scheduler
 * refuses to start a step past a plan or step budget, asking the commander; a
 * commander that keeps retrying is stopped after BUDGET_DECISION_LIMIT decisions.
 */
import { describe, expect, it } from "vitest";
import { BUDGET_DECISION_LIMIT } from "./budget.ts";
import { BUDGET_ABORT_REASON } from "./reconcile-dispatch.ts";
import { done, live, makePlan, makeSpec, NOW, run, stepOf } from "./testing/fixtures.ts";
import type { CommanderDecision, PlanEvent, RunOutcome } from "./types.ts";

const tokens = (maxTokens: number) => ({ maxTokens, maxCost: null });

describe("reconcile: usage", () => {
  it("adds reported usage for every kind of outcome", () => {
    const outcomes: RunOutcome[] = [
      { kind: "ok", summary: "s", files: [], usage: { tokens: 10, cost: 0.1 } },
      { kind: "failed", transient: true, reason: "429", usage: { tokens: 10, cost: 0.1 } },
      { kind: "failed", transient: false, reason: "no", usage: { tokens: 10, cost: 0.1 } },
      { kind: "blocked", usage: { tokens: 10, cost: 0.1 } },
    ];
    for (const outcome of outcomes) {
      const plan = makePlan({ steps: [live(1, { usage: { tokens: 5, cost: 0.5 } })] });
      const result = run(plan, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome });
      expect(stepOf(result, 1).usage).toEqual({ tokens: 15, cost: 0.6 });
      expect(result.changedSteps).toContain(1);
    }
  });

  it("leaves usage alone without a report, on run-lost, and for stale runs", () => {
    const plan = makePlan({ steps: [live(1, { usage: { tokens: 5, cost: 0 } })] });
    expect(
      stepOf(run(plan, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: { kind: "ok", summary: "s", files: [] } }), 1).usage,
    ).toEqual({ tokens: 5, cost: 0 });
    expect(stepOf(run(plan, { type: "run-lost", stepIndex: 1, runId: "run-1" }), 1).usage).toEqual({ tokens: 5, cost: 0 });
    const stale = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "old",
      outcome: { kind: "ok", summary: "s", files: [], usage: { tokens: 9, cost: 9 } },
    });
    expect(stale.plan).toEqual(plan);
  });

  it("keeps usage across a commander retry (the budget is for the step, over all its runs)", () => {
    const plan = makePlan({ steps: [{ index: 1, status: "failed", decisionPending: true, usage: { tokens: 40, cost: 0 } }] });
    const result = run(plan, { type: "commander-decision", stepIndex: 1, decision: { kind: "retry" } });
    expect(stepOf(result, 1)).toMatchObject({ status: "in_progress", usage: { tokens: 40, cost: 0 } });
  });
});

describe("reconcile: budget refusals", () => {
  it("does not dispatch once the plan budget is reached; the step fails and the commander is asked, whatever on_failure says", () => {
    for (const onFailure of ["abort_plan", "continue", "ask_commander"] as const) {
      const plan = makePlan({ budget: tokens(100), steps: [done(1, { usage: { tokens: 100, cost: 0 } }), { index: 2, onFailure }] });
      const result = run(plan, { type: "tick" });
      const reason = "budget exhausted: plan max_tokens reached (100 used of 100)";
      expect(stepOf(result, 2)).toMatchObject({
        status: "failed",
        failureReason: reason,
        decisionPending: true,
        liveRunId: null,
        attempts: 0,
        endedAt: NOW,
      });
      expect(result.commands).toEqual([{ type: "ask-commander", stepIndex: 2, failureReason: reason }]);
      expect(result.plan.status).toBe("running");
    }
  });

  it("refuses on the step's own budget (cost) while other steps still start", () => {
    const plan = makePlan({
      steps: [
        { index: 1, waitFor: [], usage: { tokens: 0, cost: 0.5 }, budget: { maxTokens: null, maxCost: 0.5 }, attempts: 1, retryAt: NOW },
        { index: 2, waitFor: [] },
      ],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 1).failureReason).toBe("budget exhausted: step max_cost reached (0.5 used of 0.5)");
    expect(result.commands).toEqual([
      { type: "ask-commander", stepIndex: 1, failureReason: expect.stringContaining("step max_cost") },
      expect.objectContaining({ type: "dispatch", stepIndex: 2 }),
    ]);
  });

  it("dispatches while usage is below every limit", () => {
    const plan = makePlan({
      budget: { maxTokens: 100, maxCost: 1 },
      steps: [done(1, { usage: { tokens: 99, cost: 0.99 } }), { index: 2, budget: tokens(1) }],
    });
    expect(run(plan, { type: "tick" }).commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });

  it("a run that crosses the plan budget finishes; the next step is refused", () => {
    const plan = makePlan({ budget: tokens(100), steps: [live(1), { index: 2 }] });
    const result = run(plan, {
      type: "run-finished",
      stepIndex: 1,
      runId: "run-1",
      outcome: { kind: "ok", summary: "s", files: [], usage: { tokens: 150, cost: 0 } },
    });
    expect(stepOf(result, 1).status).toBe("done");
    expect(stepOf(result, 2).failureReason).toBe("budget exhausted: plan max_tokens reached (150 used of 100)");
  });

  it("also refuses joining a live twin: nothing starts past a budget", () => {
    const plan = makePlan({
      budget: tokens(10),
      steps: [live(1, { waitFor: [], renderedInput: "same", usage: { tokens: 10, cost: 0 } }), { index: 2, waitFor: [], input: "same" }],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", decisionPending: true, liveRunId: null });
  });

  it("never refuses a form: asking a person spends no tokens", () => {
    const plan = makePlan({ budget: tokens(1), steps: [done(1, { usage: { tokens: 5, cost: 0 } }), { index: 2, assignee: "user" }] });
    expect(run(plan, { type: "tick" }).commands).toEqual([expect.objectContaining({ type: "open-form", stepIndex: 2 })]);
  });

  it("refuses nothing while the plan is paused (nothing starts then anyway)", () => {
    const plan = makePlan({
      status: "paused",
      budget: tokens(1),
      steps: [done(1, { usage: { tokens: 5, cost: 0 } }), { index: 2 }, { index: 3, waitFor: [], status: "blocked", assignee: "user" }],
    });
    expect(stepOf(run(plan, { type: "tick" }), 2).status).toBe("pending");
  });

  it("a member retry is refused again and asks again", () => {
    const plan = makePlan({
      budget: tokens(1),
      steps: [
        done(1, { usage: { tokens: 5, cost: 0 } }),
        { index: 2, status: "failed", decisionPending: true, failureReason: "budget exhausted: x" },
      ],
    });
    const result = run(plan, { type: "retry-step", stepIndex: 2 });
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", decisionPending: true, decisionCount: 0 });
    expect(result.commands).toEqual([expect.objectContaining({ type: "ask-commander", stepIndex: 2 })]);
  });
});

describe("reconcile: commander decisions on an exhausted budget", () => {
  const refusedStep = {
    index: 2,
    status: "failed",
    decisionPending: true,
    failureReason: "budget exhausted: plan max_tokens reached (5 used of 1)",
  } as const;
  const decide = (decision: CommanderDecision): PlanEvent => ({ type: "commander-decision", stepIndex: 2, decision });

  it("counts every applied decision, and no ignored one", () => {
    for (const decision of [{ kind: "retry" }, { kind: "skip" }, { kind: "abort" }] as CommanderDecision[]) {
      const plan = makePlan({ steps: [done(1), { ...refusedStep, decisionCount: 1 }] });
      expect(stepOf(run(plan, decide(decision)), 2).decisionCount).toBe(2);
    }
    const plan = makePlan({ steps: [done(1), refusedStep] });
    const append = run(plan, decide({ kind: "append", steps: [makeSpec({ index: 3 })] }));
    expect(stepOf(append, 2).decisionCount).toBe(1);
    const refused = run(plan, decide({ kind: "append", steps: [makeSpec({ index: 9 })] }));
    expect(refused.plan).toEqual(plan);
  });

  it("a retry is checked against the budget again: refused, counted, asked again", () => {
    let plan = makePlan({ budget: tokens(1), steps: [done(1, { usage: { tokens: 5, cost: 0 } }), refusedStep] });
    for (let decision = 1; decision < BUDGET_DECISION_LIMIT; decision += 1) {
      const result = run(plan, decide({ kind: "retry" }));
      expect(stepOf(result, 2)).toMatchObject({ status: "failed", decisionPending: true, decisionCount: decision });
      expect(result.commands).toEqual([expect.objectContaining({ type: "ask-commander", stepIndex: 2 })]);
      plan = result.plan;
    }
    // the third decision is a retry too: the refusal that follows stops the plan
    const last = run(plan, decide({ kind: "retry" }));
    expect(last.plan.status).toBe("failed");
    expect(stepOf(last, 2)).toMatchObject({
      status: "failed",
      decisionPending: false,
      decisionCount: BUDGET_DECISION_LIMIT,
      failureReason: `${BUDGET_ABORT_REASON}: plan max_tokens reached (5 used of 1)`,
    });
    expect(BUDGET_ABORT_REASON).toBe("budget exhausted after 3 decisions");
    expect(last.commands).toEqual([{ type: "plan-ended", status: "failed" }]);
  });

  it("the abort cascades like abort_plan: open steps skipped, live runs cancelled, other asks dropped", () => {
    const plan = makePlan({
      budget: tokens(1),
      steps: [
        done(1, { waitFor: [], usage: { tokens: 5, cost: 0 } }),
        { ...refusedStep, waitFor: [1], decisionCount: BUDGET_DECISION_LIMIT - 1 },
        live(3, { waitFor: [] }),
        { index: 4, waitFor: [3] },
        { index: 5, waitFor: [], status: "failed", decisionPending: true },
        // ready and over budget too, with decisions left: it must be skipped, not asked about
        { index: 6, waitFor: [1] },
      ],
    });
    const result = run(plan, decide({ kind: "retry" }));
    expect(result.plan.status).toBe("failed");
    for (const index of [3, 4, 6]) expect(stepOf(result, index)).toMatchObject({ status: "skipped", failureReason: BUDGET_ABORT_REASON });
    expect(stepOf(result, 5)).toMatchObject({ status: "failed", decisionPending: false });
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-3" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("withdraws a resume decided in the same reconcile as the abort", () => {
    const plan = makePlan({
      status: "paused",
      budget: tokens(1),
      steps: [
        done(1, { waitFor: [], usage: { tokens: 5, cost: 0 } }),
        { index: 2, waitFor: [1], decisionCount: BUDGET_DECISION_LIMIT, attempts: 1, retryAt: NOW },
        { index: 3, waitFor: [], status: "blocked", attempts: 1, liveRunId: "run-3" },
      ],
    });
    const result = run(plan, { type: "form-answered", stepIndex: 3, summary: "yes" });
    expect(result.plan.status).toBe("failed");
    expect(stepOf(result, 3)).toMatchObject({ status: "skipped", liveRunId: null });
    // neither a resume of a run that would die at once, nor a cancel of a run that was never created
    expect(result.commands).toEqual([{ type: "plan-ended", status: "failed" }]);
  });
});
