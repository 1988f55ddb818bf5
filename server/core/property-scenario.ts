/**
 * Test-only (never imported by production code): the random scenarios that
 * reconcile.property.test.ts drives — random DAGs with required and optional
 * edges, quorums, repeated inputs (to force single-flight), budgets — and a seeded
 * driver that picks one plausible event at a time, with random usage in outcomes.
 */
import fc from "fast-check";
import { createPlanState } from "./plan-state.ts";
import type { CapacityView, CommanderDecision, PlanEvent, PlanState, RunUsage, StepSpec } from "./types.ts";
import { validatePlan } from "./validate-plan.ts";

export const HANDLES = ["alpha", "beta", "gamma"] as const;
export const MAX_STEPS = 40;

// a budget on about one plan or step in three, so budgets bite without ending most plans early
const rawBudgetArbitrary = (tokens: { min: number; max: number }, cost: { min: number; max: number }) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.record({
        maxTokens: fc.option(fc.integer(tokens), { nil: undefined }),
        maxCost: fc.option(fc.double({ ...cost, noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
      }),
    },
  );

const rawStepArbitrary = fc.record({
  // 0-1: required edge, 2: optional edge, else none (a quarter of earlier steps required, as before)
  waitMask: fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 30 }),
  // a quorum for roughly one step in four that has dependencies
  quorum: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat({ max: 29 }) }),
  onFailure: fc.oneof(
    { weight: 1, arbitrary: fc.constant("abort_plan" as const) },
    { weight: 2, arbitrary: fc.constant("continue" as const) },
    { weight: 3, arbitrary: fc.constant("ask_commander" as const) },
  ),
  assignee: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...HANDLES) },
    { weight: 1, arbitrary: fc.constant("user") },
    { weight: 1, arbitrary: fc.constant("commander") },
  ),
  maxRetries: fc.integer({ min: 0, max: 3 }),
  useTemplate: fc.boolean(),
  // one of a few shared inputs, spaced differently, so identical subtasks meet often
  sharedInput: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }) }),
  oddSpacing: fc.boolean(),
  budget: rawBudgetArbitrary({ min: 50, max: 800 }, { min: 0.05, max: 1 }),
});

const poolArbitrary = fc.option(
  fc.integer({ min: 1, max: 3 }).chain((limit) => fc.record({ limit: fc.constant(limit), live: fc.integer({ min: 0, max: limit - 1 }) })),
  { nil: undefined },
);

export const scenarioArbitrary = fc.record({
  // size "max": plans of every length up to 30, not mostly tiny ones
  steps: fc.array(rawStepArbitrary, { minLength: 1, maxLength: 30, size: "max" }),
  maxParallel: fc.integer({ min: 1, max: 5 }),
  agentPools: fc.record({ alpha: poolArbitrary, beta: poolArbitrary, gamma: poolArbitrary, commander: poolArbitrary }),
  modelPool: poolArbitrary,
  budget: rawBudgetArbitrary({ min: 300, max: 6000 }, { min: 0.3, max: 6 }),
  seed: fc.integer(),
});
export type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

function rawBudget(budget: { maxTokens?: number; maxCost?: number } | undefined) {
  if (!budget) return undefined;
  return {
    ...(budget.maxTokens !== undefined ? { max_tokens: budget.maxTokens } : {}),
    ...(budget.maxCost !== undefined ? { max_cost: budget.maxCost } : {}),
  };
}

export function buildPlan(scenario: Scenario): PlanState {
  const raw = {
    title: "random plan",
    max_parallel: scenario.maxParallel,
    budget: rawBudget(scenario.budget),
    steps: scenario.steps.map((step, position) => {
      const index = position + 1;
      const entries = step.waitMask.flatMap((kind, j) => (kind <= 2 && j + 1 < index ? [{ step: j + 1, optional: kind === 2 }] : []));
      const waitFor = entries.map((entry) => entry.step);
      const template = step.useTemplate && waitFor.length > 0 ? `{{request}} then {{step_${waitFor[0]}.output_summary}}` : `part ${index}`;
      const shared = step.sharedInput === null ? null : step.oddSpacing ? `  shared\n task   ${step.sharedInput} ` : `shared task ${step.sharedInput}`;
      return {
        index,
        title: `step ${index}`,
        assignee: step.assignee,
        input: shared ?? template,
        wait_for: entries.map((entry) => (entry.optional ? entry : entry.step)),
        ...(step.quorum !== null && waitFor.length > 0 ? { quorum: 1 + (step.quorum % waitFor.length) } : {}),
        on_failure: step.onFailure,
        max_retries: step.maxRetries,
        budget: rawBudget(step.budget),
      };
    }),
  };
  const spec = validatePlan({
    raw,
    assignees: new Set(HANDLES),
    limits: { maxSteps: 30, maxInputChars: 1000, defaultMaxParallel: 1, defaultMaxRetries: 3 },
  });
  return createPlanState({ id: "plan", request: "the request", spec });
}

export function buildCapacity(scenario: Scenario): CapacityView {
  const agents: CapacityView["agents"] = {};
  for (const [handle, pool] of Object.entries(scenario.agentPools)) if (pool) agents[handle] = pool;
  return {
    agents,
    models: scenario.modelPool ? { shared: scenario.modelPool } : {},
    agentModel: { alpha: "shared", beta: "shared", gamma: "other", commander: "other" },
  };
}

export interface Driver {
  random: () => number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** mulberry32: a tiny seeded generator so one fast-check seed replays one whole run */
export function makeDriver(seed: number): Driver {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random,
    pick: (items) => items[Math.floor(random() * items.length)],
    chance: (probability) => random() < probability,
  };
}

function randomUsage(driver: Driver): RunUsage | undefined {
  if (driver.chance(0.3)) return undefined;
  return { tokens: Math.floor(driver.random() * 300), cost: Math.round(driver.random() * 3000) / 10_000 };
}

function appendedSteps(driver: Driver, plan: PlanState): StepSpec[] {
  const first = Math.max(...plan.steps.map((step) => step.index)) + 1;
  const steps: StepSpec[] = [];
  for (let index = first; index < first + 1 + Math.floor(driver.random() * 2); index += 1) {
    const candidates = Array.from({ length: index - 1 }, (_, i) => i + 1);
    const waitFor = candidates.filter(() => driver.chance(0.15));
    steps.push({
      index,
      title: `appended ${index}`,
      assignee: driver.pick([...HANDLES, "user", "commander"]),
      input: driver.chance(0.3) ? "shared task 0" : "appended work",
      waitFor,
      optionalWaitFor: waitFor.filter(() => driver.chance(0.3)),
      quorum: waitFor.length > 0 && driver.chance(0.3) ? 1 + Math.floor(driver.random() * waitFor.length) : null,
      onFailure: driver.pick(["abort_plan", "continue", "ask_commander"] as const),
      maxRetries: Math.floor(driver.random() * 3),
      budget: { maxTokens: driver.chance(0.2) ? 100 + Math.floor(driver.random() * 400) : null, maxCost: null },
    });
  }
  return steps;
}

function randomDecision(driver: Driver, plan: PlanState, stepIndex: number, windDown: boolean, decisionsSoFar: number): CommanderDecision {
  if (windDown || decisionsSoFar >= 3) return { kind: "skip", reason: "enough" };
  // a commander that keeps retrying an exhausted budget is what the decision limit is for
  const overBudget = plan.steps.find((step) => step.index === stepIndex)?.failureReason?.startsWith("budget exhausted") ?? false;
  if (overBudget && driver.chance(0.7)) return { kind: "retry" };
  const roll = driver.random();
  if (roll < 0.2) return driver.chance(0.5) ? { kind: "retry" } : { kind: "retry", assignee: driver.pick([...HANDLES, "user"]), input: "again" };
  if (roll < 0.6) return { kind: "skip", reason: "not needed" };
  if (roll < 0.75) return { kind: "abort", reason: "hopeless" };
  if (plan.steps.length >= MAX_STEPS) return { kind: "skip" };
  return { kind: "append", steps: appendedSteps(driver, plan) };
}

/** One random event that makes sense for the plan as it is, or null when nothing can happen. */
export function chooseEvent(driver: Driver, plan: PlanState, windDown: boolean, decisions: Map<number, number>): PlanEvent | null {
  const options: Array<{ weight: number; make: () => PlanEvent }> = [];
  const liveSteps = plan.steps.filter((step) => step.status === "in_progress");
  const blocked = plan.steps.filter((step) => step.status === "blocked");
  const awaiting = plan.steps.filter((step) => step.decisionPending);
  const backoff = plan.steps.filter((step) => step.status === "pending" && step.retryAt !== null);
  const pending = plan.steps.filter((step) => step.status === "pending");

  if (liveSteps.length > 0) {
    options.push({
      weight: 10,
      make: () => {
        const step = driver.pick(liveSteps);
        const runId = step.liveRunId!;
        const usage = randomUsage(driver);
        const roll = windDown ? 0 : driver.random();
        if (roll < 0.55) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "ok", summary: `out ${step.index}`, files: [], untrusted: driver.chance(0.2), usage } };
        if (roll < 0.7) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "failed", transient: true, reason: "rate limited", usage } };
        if (roll < 0.8) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "failed", transient: false, reason: "broken", usage } };
        if (roll < 0.9) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "blocked", usage } };
        if (roll < 0.95) return { type: "run-lost", stepIndex: step.index, runId };
        return { type: "run-started", stepIndex: step.index, runId };
      },
    });
    if (!windDown) {
      options.push({
        weight: 1,
        make: () => ({ type: "run-finished", stepIndex: driver.pick(liveSteps).index, runId: "stale-run", outcome: { kind: "ok", summary: "late", files: [], usage: { tokens: 5, cost: 1 } } }),
      });
    }
  }
  if (blocked.length > 0) {
    options.push({ weight: 4, make: () => ({ type: "form-answered", stepIndex: driver.pick(blocked).index, summary: "**Answer**: yes" }) });
  }
  if (awaiting.length > 0) {
    options.push({
      weight: 4,
      make: () => {
        const step = driver.pick(awaiting);
        const count = decisions.get(step.index) ?? 0;
        decisions.set(step.index, count + 1);
        if (!windDown && driver.chance(0.15)) return { type: "retry-step", stepIndex: step.index };
        return { type: "commander-decision", stepIndex: step.index, decision: randomDecision(driver, plan, step.index, windDown, count) };
      },
    });
  }
  if (backoff.length > 0) options.push({ weight: 3, make: () => ({ type: "tick" }) });
  if (!windDown) {
    if (pending.length > 0) options.push({ weight: 0.3, make: () => ({ type: "skip-step", stepIndex: driver.pick(pending).index, reason: "member skipped" }) });
    options.push({ weight: 0.03, make: () => ({ type: "cancel", reason: "member cancelled" }) });
    options.push({ weight: 0.3, make: () => ({ type: "tick" }) });
    options.push({ weight: 0.1, make: () => ({ type: "form-answered", stepIndex: 999, summary: "nobody" }) });
  }
  // nothing left to drive: the caller then checks that the plan really ended
  if (options.length === 0) return null;
  const total = options.reduce((sum, option) => sum + option.weight, 0);
  let roll = driver.random() * total;
  for (const option of options) {
    roll -= option.weight;
    if (roll <= 0) return option.make();
  }
  return options[options.length - 1].make();
}
