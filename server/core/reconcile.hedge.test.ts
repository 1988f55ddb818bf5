/**
 * Hedged stragglers (hedge.ts): examples of each rule, then a property test that
 * races primaries and twins in random orders and checks that a step completes once,
 * is hedged at most once per attempt, within its budget, and that no run is left
 * running without a step or cancelled while one needs it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planUsage } from "./budget.ts";
import { reconcile } from "./reconcile.ts";
import { isTerminalPlan } from "./status.ts";
import { EMPTY_CAPACITY, NOW, deepFreeze, live, makePlan, runIds } from "./testing/fixtures.ts";
import type { PlanCommand, PlanEvent, PlanState, ReconcileResult, RunOutcome } from "./types.ts";

const ESTIMATE = { tokens: 100, cost: 0.01 };

function apply(plan: PlanState, event: PlanEvent, newRunId = runIds("twin")): ReconcileResult {
  return reconcile({ plan: deepFreeze(plan), event, now: NOW, random: () => 0.5, newRunId, capacity: EMPTY_CAPACITY });
}

const hedge = (stepIndex: number, runId: string): PlanEvent => ({ type: "hedge", stepIndex, runId, model: "alt:fast", estimate: ESTIMATE });
const ok: RunOutcome = { kind: "ok", summary: "result", files: [], usage: { tokens: 40, cost: 0.004 } };
const failed: RunOutcome = { kind: "failed", transient: false, reason: "model refused", usage: { tokens: 5, cost: 0.0005 } };

/** One running step (run-1), hedged as twin-1. */
function hedged(init: Parameters<typeof makePlan>[0] = { steps: [live(1, { waitFor: [] })] }): PlanState {
  const result = apply(makePlan(init), hedge(1, "run-1"));
  expect(result.ignored).toBeUndefined();
  return result.plan;
}

describe("hedging a straggler", () => {
  it("starts a twin on the alternate model, recorded on the step", () => {
    const result = apply(makePlan({ steps: [live(1, { waitFor: [], renderedInput: "do it" })] }), hedge(1, "run-1"));
    expect(result.commands).toEqual([
      {
        type: "hedge",
        stepIndex: 1,
        assignee: "writer",
        renderedInput: "do it",
        attempt: 1,
        runId: "twin-1",
        primaryRunId: "run-1",
        model: "alt:fast",
      },
    ]);
    expect(result.plan.steps[0]).toMatchObject({ liveRunId: "run-1", hedgeRunId: "twin-1", hedgeModel: "alt:fast" });
  });

  it("hedges an attempt once, even after its twin failed", () => {
    const dropped = apply(hedged(), { type: "run-finished", stepIndex: 1, runId: "twin-1", outcome: failed }).plan;
    expect(dropped.steps[0]).toMatchObject({ status: "in_progress", liveRunId: "run-1", hedgeRunId: null });
    const again = apply(dropped, hedge(1, "run-1"));
    expect(again.ignored).toBe("not hedged: attempt 1 was already hedged on alt:fast");
  });

  it("refuses when the budget could not pay for one more run, a stale run, a paused plan or a shared run", () => {
    const tight = makePlan({
      steps: [live(1, { waitFor: [], usage: { tokens: 950, cost: 0 } })],
      budget: { maxTokens: 1000, maxCost: null },
    });
    expect(apply(tight, hedge(1, "run-1")).ignored).toMatch(/^not hedged: plan max_tokens cannot cover it/);
    const stale = makePlan({ steps: [live(1, { waitFor: [] })] });
    expect(apply(stale, hedge(1, "run-0")).ignored).toBe("not hedged: run run-0 is no longer the step's live run");
    const paused = makePlan({ steps: [live(1, { waitFor: [] }), { index: 2, waitFor: [], status: "blocked", liveRunId: "run-2" }] });
    expect(apply(paused, hedge(1, "run-1")).ignored).toBe("not hedged: the plan is paused");
    const shared = makePlan({ steps: [live(1, { waitFor: [] }), live(2, { waitFor: [], liveRunId: "run-1" })] });
    expect(apply(shared, hedge(1, "run-1")).ignored).toBe("not hedged: run run-1 is shared with other steps");
  });

  it("lets the twin win: the step is done with its output and the primary is cancelled as the loser", () => {
    const result = apply(hedged(), { type: "run-finished", stepIndex: 1, runId: "twin-1", outcome: ok });
    expect(result.plan.steps[0]).toMatchObject({ status: "done", outputSummary: "result", liveRunId: null, hedgeRunId: null });
    expect(result.plan.steps[0].usage).toEqual(ok.usage);
    expect(result.commands).toContainEqual({ type: "cancel-run", runId: "run-1", reason: "lost-hedge" });
  });

  it("lets the primary win: the twin is cancelled as the loser", () => {
    const result = apply(hedged(), { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: ok });
    expect(result.plan.steps[0]).toMatchObject({ status: "done", hedgeRunId: null, hedgeModel: "alt:fast" });
    expect(result.commands).toContainEqual({ type: "cancel-run", runId: "twin-1", reason: "lost-hedge" });
  });

  it("does not fail the step when the primary fails while the twin runs, nor when the run is lost", () => {
    for (const event of [
      { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: failed },
      { type: "run-lost", stepIndex: 1, runId: "run-1" },
    ] satisfies PlanEvent[]) {
      const result = apply(hedged(), event);
      expect(result.plan.steps[0]).toMatchObject({ status: "in_progress", liveRunId: "twin-1", hedgeRunId: null });
      expect(result.commands).toEqual([]);
    }
  });

  it("stops the twin with its plan", () => {
    const cancelled = apply(hedged(), { type: "cancel", reason: "stop" });
    expect(cancelled.commands).toContainEqual({ type: "cancel-run", runId: "twin-1" });
    expect(cancelled.commands).toContainEqual({ type: "cancel-run", runId: "run-1" });
  });

  it("counts a stopped loser's usage toward the budget once it is reported", () => {
    const won = apply(hedged(), { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: ok }).plan;
    // a one-step plan has ended; the usage of a loser matters while the plan runs
    expect(won.status).toBe("completed");
    const twoSteps = hedged({ steps: [live(1, { waitFor: [] }), live(2, { waitFor: [] })] });
    const after = apply(twoSteps, { type: "run-finished", stepIndex: 1, runId: "run-1", outcome: ok }).plan;
    const usage = apply(after, { type: "run-usage", stepIndex: 1, runId: "twin-1", usage: { tokens: 7, cost: 0.001 } });
    expect(usage.plan.steps[0].usage.tokens).toBe(47);
    expect(apply(twoSteps, { type: "run-usage", stepIndex: 1, runId: "twin-1", usage: ESTIMATE }).ignored).toMatch(/still live/);
  });
});

// ─── property: random races ───────────────────────────────────────────────────

interface Tracker {
  /** runs started and not yet ended or cancelled */
  running: Set<string>;
  /** step:attempt pairs that were hedged */
  hedgedAttempts: Set<string>;
  doneCount: Map<number, number>;
}

const started = (command: PlanCommand) =>
  command.type === "dispatch" || command.type === "resume" || command.type === "hedge" ? command.runId : null;

function check(tracker: Tracker, before: PlanState, event: PlanEvent, result: ReconcileResult): void {
  if (event.type === "run-finished" || event.type === "run-lost") tracker.running.delete(event.runId);
  for (const command of result.commands) {
    const runId = started(command);
    if (runId !== null) tracker.running.add(runId);
    if (command.type === "cancel-run") {
      // a run is cancelled only while it runs, and only when no step holds it any more
      expect(tracker.running.has(command.runId)).toBe(true);
      tracker.running.delete(command.runId);
    }
    if (command.type === "hedge") {
      const key = `${command.stepIndex}:${command.attempt}`;
      expect(tracker.hedgedAttempts.has(key), `attempt hedged twice: ${key}`).toBe(false);
      tracker.hedgedAttempts.add(key);
      if (event.type === "hedge" && before.budget.maxTokens !== null) {
        expect(planUsage(before).tokens + 2 * event.estimate.tokens).toBeLessThanOrEqual(before.budget.maxTokens);
      }
    }
  }
  const held = new Set<string>();
  for (const step of result.plan.steps) {
    if (step.status !== "in_progress") expect(step.hedgeRunId).toBeNull();
    else {
      if (step.liveRunId !== null) held.add(step.liveRunId);
      if (step.hedgeRunId !== null) held.add(step.hedgeRunId);
      expect(step.hedgeRunId === null || step.hedgeRunId !== step.liveRunId).toBe(true);
    }
    const was = before.steps.find((candidate) => candidate.index === step.index);
    if (step.status === "done" && was?.status !== "done") tracker.doneCount.set(step.index, (tracker.doneCount.get(step.index) ?? 0) + 1);
  }
  // no run left running without a step that needs it, and no step on a run that is not running
  expect([...tracker.running].sort()).toEqual([...held].sort());
  for (const count of tracker.doneCount.values()) expect(count).toBe(1);
}

const outcomeArbitrary = fc.constantFrom<RunOutcome>(
  ok,
  ok,
  failed,
  { kind: "failed", transient: true, reason: "timeout", usage: { tokens: 3, cost: 0 } },
  { kind: "blocked", usage: { tokens: 2, cost: 0 } },
);

const choiceArbitrary = fc.record({ pick: fc.nat(), kind: fc.nat({ max: 9 }), outcome: outcomeArbitrary, estimate: fc.nat({ max: 400 }) });

type Choice = { pick: number; kind: number; outcome: RunOutcome; estimate: number };

function chooseEvent(plan: PlanState, choice: Choice, windDown: boolean): PlanEvent {
  const running = plan.steps.filter((step) => step.status === "in_progress" && step.liveRunId !== null);
  const blocked = plan.steps.find((step) => step.status === "blocked");
  if (blocked && (choice.kind < 2 || running.length === 0)) return { type: "form-answered", stepIndex: blocked.index, summary: "answer" };
  if (running.length === 0) return { type: "tick" };
  const step = running[choice.pick % running.length];
  const runs = [step.liveRunId!, ...(step.hedgeRunId ? [step.hedgeRunId] : [])];
  const runId = runs[choice.pick % runs.length];
  if (!windDown && choice.kind < 4)
    return { type: "hedge", stepIndex: step.index, runId: step.liveRunId!, model: "alt", estimate: { tokens: choice.estimate, cost: 0 } };
  if (!windDown && choice.kind === 4) return { type: "run-lost", stepIndex: step.index, runId };
  const outcome = windDown && choice.outcome.kind !== "ok" ? ok : choice.outcome;
  return { type: "run-finished", stepIndex: step.index, runId, outcome };
}

describe("hedging properties", () => {
  it("completes each step once, hedges each attempt at most once within budget, and leaks no run", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 200, max: 2000 })),
        fc.array(choiceArbitrary, { minLength: 120, maxLength: 120 }),
        (count, maxTokens, choices) => {
          const steps = Array.from({ length: count }, (_, i) => ({
            index: i + 1,
            waitFor: i % 2 === 1 ? [i] : [],
            onFailure: "continue" as const,
            maxRetries: 2,
          }));
          let plan = makePlan({ steps, maxParallel: 2, budget: { maxTokens, maxCost: null } });
          const tracker: Tracker = { running: new Set(), hedgedAttempts: new Set(), doneCount: new Map() };
          const newRunId = runIds("r");
          let now = NOW;
          let event: PlanEvent = { type: "plan-created" };
          for (let i = 0; i < choices.length && !isTerminalPlan(plan.status); i++) {
            const before = deepFreeze(plan);
            const result = reconcile({ plan: before, event, now, random: () => 0.5, newRunId, capacity: EMPTY_CAPACITY });
            check(tracker, before, event, result);
            plan = result.plan;
            now += 10_000;
            event = chooseEvent(plan, choices[i], i >= choices.length / 2);
          }
          expect(isTerminalPlan(plan.status) || plan.steps.some((step) => step.decisionPending)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
