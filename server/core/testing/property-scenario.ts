/**
 * Test-only (never imported by production code): the random scenarios that
 * reconcile.property.test.ts drives — random DAGs with required and optional
 * edges, quorums, repeated inputs (to force single-flight), budgets, for_each steps —
 * and a seeded driver that picks one plausible event at a time, with random usage in
 * outcomes and, for for_each to map over, summaries that are lists and file lists.
 */
import fc from "fast-check";
import { createPlanState } from "../plan-state.ts";
import type { CapacityView, CommanderDecision, ForEach, PlanEvent, PlanState, RunUsage, StepSpec } from "../types.ts";
import { validatePlan } from "../validate-plan.ts";

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
  // a for_each over its first dependency for about one step in five that has one
  forEach: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        field: fc.constantFrom("output_files" as const, "output_lines" as const),
        maxParallel: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        indexed: fc.boolean(),
      }),
    },
  ),
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
  // a harsh driver fails runs for good far more often, so plans that end with
  // nothing delivered are common enough to be checked in every run of the suite
  harsh: fc.boolean(),
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
      const shared =
        step.sharedInput === null ? null : step.oddSpacing ? `  shared\n task   ${step.sharedInput} ` : `shared task ${step.sharedInput}`;
      // without {{item_index}} equal items of one list are twins (single-flight among children)
      const forEach = step.forEach !== null && waitFor.length > 0 ? step.forEach : null;
      const input = forEach ? `${forEach.indexed ? "{{item_index}}. " : ""}handle {{item}}` : (shared ?? template);
      return {
        index,
        title: `step ${index}`,
        assignee: step.assignee,
        input,
        wait_for: entries.map((entry) => (entry.optional ? entry : entry.step)),
        ...(forEach
          ? {
              for_each: {
                from: waitFor[0],
                field: forEach.field,
                ...(forEach.maxParallel !== undefined ? { max_parallel: forEach.maxParallel } : {}),
              },
            }
          : {}),
        // for_each and quorum do not mix (validation)
        ...(step.quorum !== null && waitFor.length > 0 && !forEach ? { quorum: 1 + (step.quorum % waitFor.length) } : {}),
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
  /** runs fail for good about a third of the time instead of a tenth */
  harsh: boolean;
  random: () => number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** mulberry32: a tiny seeded generator so one fast-check seed replays one whole run */
export function makeDriver(seed: number, harsh = false): Driver {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    harsh,
    random,
    pick: (items) => items[Math.floor(random() * items.length)],
    chance: (probability) => random() < probability,
  };
}

const ITEM_WORDS = ["alpha", "beta", "gamma", "delta"] as const;
const MARKERS = ["", "- ", "* ", "1. ", "2) ", "  "] as const;

/**
 * What an ok run says: mostly one line, often a list (bullets, numbers, blank lines,
 * repeated items) for output_lines to map over, rarely a list past the item limit.
 */
function randomSummary(driver: Driver, stepIndex: number): string {
  const roll = driver.random();
  if (roll < 0.45) return `out ${stepIndex}`;
  if (roll < 0.93) {
    const count = Math.floor(driver.random() * 6);
    return Array.from({ length: count }, () => (driver.chance(0.15) ? "" : `${driver.pick(MARKERS)}${driver.pick(ITEM_WORDS)}`)).join("\n");
  }
  return Array.from({ length: 101 + Math.floor(driver.random() * 3) }, (_, i) => `- line ${i}`).join("\n");
}

/** Files an ok run produced: often none, else a few names that repeat across steps, rarely more than the item limit. */
function randomFiles(driver: Driver): string[] {
  if (driver.chance(0.5)) return [];
  if (driver.chance(0.06)) return Array.from({ length: 101 + Math.floor(driver.random() * 3) }, (_, i) => `bulk-${i}.md`);
  return Array.from({ length: 1 + Math.floor(driver.random() * 4) }, () => `f${Math.floor(driver.random() * 5)}.md`);
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
    // sometimes a for_each over its first dependency (no quorum with it, as validation requires)
    const forEach: ForEach | null =
      waitFor.length > 0 && driver.chance(0.25)
        ? {
            from: waitFor[0],
            field: driver.pick(["output_files", "output_lines"] as const),
            maxParallel: driver.chance(0.5) ? 1 + Math.floor(driver.random() * 2) : null,
          }
        : null;
    const input = driver.chance(0.3) ? "shared task 0" : "appended work";
    steps.push({
      index,
      title: `appended ${index}`,
      assignee: driver.pick([...HANDLES, "user", "commander"]),
      input: forEach ? `${input} on {{item}}` : input,
      waitFor,
      optionalWaitFor: waitFor.filter(() => driver.chance(0.3)),
      quorum: waitFor.length > 0 && !forEach && driver.chance(0.3) ? 1 + Math.floor(driver.random() * waitFor.length) : null,
      onFailure: driver.pick(["abort_plan", "continue", "ask_commander"] as const),
      maxRetries: Math.floor(driver.random() * 3),
      budget: { maxTokens: driver.chance(0.2) ? 100 + Math.floor(driver.random() * 400) : null, maxCost: null },
      forEach,
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
  if (roll < 0.2)
    return driver.chance(0.5) ? { kind: "retry" } : { kind: "retry", assignee: driver.pick([...HANDLES, "user"]), input: "again" };
  if (roll < 0.6) return { kind: "skip", reason: "not needed" };
  if (roll < 0.75) return { kind: "abort", reason: "hopeless" };
  // for_each children do not count: they are bounded by the item limit, as in validateAppendedSteps
  if (plan.steps.filter((step) => step.parentIndex === null).length >= MAX_STEPS) return { kind: "skip" };
  return { kind: "append", steps: appendedSteps(driver, plan) };
}

/** One random event that makes sense for the plan as it is, or null when nothing can happen. */
export function chooseEvent(driver: Driver, plan: PlanState, windDown: boolean, decisions: Map<number, number>): PlanEvent | null {
  const options: Array<{ weight: number; make: () => PlanEvent }> = [];
  // a collecting for_each step is in progress with no run: there is nothing of it to finish
  const liveSteps = plan.steps.filter((step) => step.status === "in_progress" && step.liveRunId !== null);
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
        // shares of ok, transient and fatal endings; the rest blocks, is lost or restarts
        const [okBelow, transientBelow] = driver.harsh ? [0.3, 0.45] : [0.55, 0.7];
        if (roll < okBelow) {
          const outcome = {
            kind: "ok" as const,
            summary: randomSummary(driver, step.index),
            files: randomFiles(driver),
            untrusted: driver.chance(0.2),
            usage,
          };
          return { type: "run-finished", stepIndex: step.index, runId, outcome };
        }
        if (roll < transientBelow)
          return {
            type: "run-finished",
            stepIndex: step.index,
            runId,
            outcome: { kind: "failed", transient: true, reason: "rate limited", usage },
          };
        if (roll < 0.8)
          return {
            type: "run-finished",
            stepIndex: step.index,
            runId,
            // some are failures a stronger model could fix, with an escalation model to try (once per step)
            outcome: {
              kind: "failed",
              transient: false,
              reason: "broken",
              ...(driver.chance(0.3) ? { escalation: "malformed-tool-calls" as const } : {}),
              usage,
            },
          };
        if (roll < 0.9) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "blocked", usage } };
        if (roll < 0.95) return { type: "run-lost", stepIndex: step.index, runId };
        return { type: "run-started", stepIndex: step.index, runId };
      },
    });
    if (!windDown) {
      options.push({
        weight: 1,
        make: () => ({
          type: "run-finished",
          stepIndex: driver.pick(liveSteps).index,
          runId: "stale-run",
          outcome: { kind: "ok", summary: "late", files: [], usage: { tokens: 5, cost: 1 } },
        }),
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
  // a failure for good that awaits nobody (continue, a for_each item, a stop): a member may retry it
  const failedAlone = plan.steps.filter((step) => step.status === "failed" && !step.decisionPending);
  if (!windDown) {
    if (liveSteps.length > 0)
      options.push({ weight: 0.4, make: () => ({ type: "stop-step", stepIndex: driver.pick(liveSteps).index, by: "Ada" }) });
    if (failedAlone.length > 0)
      options.push({ weight: 0.3, make: () => ({ type: "retry-step", stepIndex: driver.pick(failedAlone).index }) });
    if (pending.length > 0)
      options.push({ weight: 0.3, make: () => ({ type: "skip-step", stepIndex: driver.pick(pending).index, reason: "member skipped" }) });
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

/**
 * A member's retry after the plan ended: a failed or skipped top-level step (one
 * skipped after its items were made is refused, as reconcile refuses it), or null
 * when the plan has none.
 */
export function chooseReopen(driver: Driver, plan: PlanState): PlanEvent | null {
  const candidates = plan.steps.filter(
    (step) => step.parentIndex === null && (step.status === "failed" || (step.status === "skipped" && step.expansion === null)),
  );
  return candidates.length === 0 ? null : { type: "reopen", stepIndex: driver.pick(candidates).index };
}
