/**
 * Property tests: random DAGs driven by a random driver (finish runs ok, transient,
 * fatal or blocked, answer forms and decisions, fire ticks, sometimes cancel).
 * Invariants are checked after every single reconcile.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createPlanState } from "./plan-state.ts";
import { reconcile } from "./reconcile.ts";
import { isSuccessfulEnough, isTerminalPlan, isTerminalStep } from "./status.ts";
import { deepFreeze } from "./test-fixtures.ts";
import type { CapacityView, CommanderDecision, PlanEvent, PlanState, ReconcileResult, StepSpec, StepState } from "./types.ts";
import { validatePlan } from "./validate-plan.ts";

const HANDLES = ["alpha", "beta", "gamma"] as const;
const MAX_EVENTS = 600;
/** after this many events the driver only makes progress, so every run must end */
const WIND_DOWN_AFTER = 300;
const MAX_STEPS = 40;

const rawStepArbitrary = fc.record({
  waitMask: fc.array(fc.integer({ min: 0, max: 3 }).map((value) => value === 0), { maxLength: 30 }),
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
});

const poolArbitrary = fc.option(
  fc.integer({ min: 1, max: 3 }).chain((limit) => fc.record({ limit: fc.constant(limit), live: fc.integer({ min: 0, max: limit - 1 }) })),
  { nil: undefined },
);

const scenarioArbitrary = fc.record({
  // size "max": plans of every length up to 30, not mostly tiny ones
  steps: fc.array(rawStepArbitrary, { minLength: 1, maxLength: 30, size: "max" }),
  maxParallel: fc.integer({ min: 1, max: 5 }),
  agentPools: fc.record({ alpha: poolArbitrary, beta: poolArbitrary, gamma: poolArbitrary, commander: poolArbitrary }),
  modelPool: poolArbitrary,
  seed: fc.integer(),
});
type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** mulberry32: a tiny seeded generator so one fast-check seed replays one whole run */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildPlan(scenario: Scenario): PlanState {
  const raw = {
    title: "random plan",
    max_parallel: scenario.maxParallel,
    steps: scenario.steps.map((step, position) => {
      const index = position + 1;
      const waitFor = step.waitMask.flatMap((wait, j) => (wait && j + 1 < index ? [j + 1] : []));
      const input = step.useTemplate && waitFor.length > 0 ? `{{request}} then {{step_${waitFor[0]}.output_summary}}` : `part ${index}`;
      return { index, title: `step ${index}`, assignee: step.assignee, input, wait_for: waitFor, on_failure: step.onFailure, max_retries: step.maxRetries };
    }),
  };
  const spec = validatePlan({
    raw,
    assignees: new Set(HANDLES),
    limits: { maxSteps: 30, maxInputChars: 1000, defaultMaxParallel: 1, defaultMaxRetries: 3 },
  });
  return createPlanState({ id: "plan", request: "the request", spec });
}

function buildCapacity(scenario: Scenario): CapacityView {
  const agents: CapacityView["agents"] = {};
  for (const [handle, pool] of Object.entries(scenario.agentPools)) if (pool) agents[handle] = pool;
  return {
    agents,
    models: scenario.modelPool ? { shared: scenario.modelPool } : {},
    agentModel: { alpha: "shared", beta: "shared", gamma: "other", commander: "other" },
  };
}

interface Driver {
  random: () => number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

function makeDriver(seed: number): Driver {
  const random = seededRandom(seed);
  return {
    random,
    pick: (items) => items[Math.floor(random() * items.length)],
    chance: (probability) => random() < probability,
  };
}

function randomDecision(driver: Driver, plan: PlanState, windDown: boolean, decisionsSoFar: number): CommanderDecision {
  if (windDown || decisionsSoFar >= 3) return { kind: "skip", reason: "enough" };
  const roll = driver.random();
  if (roll < 0.2) return driver.chance(0.5) ? { kind: "retry" } : { kind: "retry", assignee: driver.pick([...HANDLES, "user"]), input: "again" };
  if (roll < 0.6) return { kind: "skip", reason: "not needed" };
  if (roll < 0.75) return { kind: "abort", reason: "hopeless" };
  if (plan.steps.length >= MAX_STEPS) return { kind: "skip" };
  const first = Math.max(...plan.steps.map((step) => step.index)) + 1;
  const steps: StepSpec[] = [];
  for (let index = first; index < first + 1 + Math.floor(driver.random() * 2); index += 1) {
    const candidates = Array.from({ length: index - 1 }, (_, i) => i + 1);
    const waitFor = candidates.filter(() => driver.chance(0.15));
    steps.push({
      index,
      title: `appended ${index}`,
      assignee: driver.pick([...HANDLES, "user", "commander"]),
      input: "appended work",
      waitFor,
      onFailure: driver.pick(["abort_plan", "continue", "ask_commander"] as const),
      maxRetries: Math.floor(driver.random() * 3),
    });
  }
  return { kind: "append", steps };
}

/** One random event that makes sense for the plan as it is, or null when nothing can happen. */
function chooseEvent(driver: Driver, plan: PlanState, windDown: boolean, decisions: Map<number, number>): PlanEvent | null {
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
        const roll = windDown ? 0 : driver.random();
        if (roll < 0.55) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "ok", summary: `out ${step.index}`, files: [], untrusted: driver.chance(0.2) } };
        if (roll < 0.7) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "failed", transient: true, reason: "rate limited" } };
        if (roll < 0.8) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "failed", transient: false, reason: "broken" } };
        if (roll < 0.9) return { type: "run-finished", stepIndex: step.index, runId, outcome: { kind: "blocked" } };
        if (roll < 0.95) return { type: "run-lost", stepIndex: step.index, runId };
        return { type: "run-started", stepIndex: step.index, runId };
      },
    });
    if (!windDown) {
      options.push({
        weight: 1,
        make: () => ({ type: "run-finished", stepIndex: driver.pick(liveSteps).index, runId: "stale-run", outcome: { kind: "ok", summary: "late", files: [] } }),
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
        return { type: "commander-decision", stepIndex: step.index, decision: randomDecision(driver, plan, windDown, count) };
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

function eventStepIndex(event: PlanEvent): number | null {
  return "stepIndex" in event ? event.stepIndex : null;
}

function sameStep(a: StepState, b: StepState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function checkInvariants({
  before,
  event,
  result,
  capacity,
  now,
  seenRunIds,
}: {
  before: PlanState;
  event: PlanEvent;
  result: ReconcileResult;
  capacity: CapacityView;
  now: number;
  seenRunIds: Set<string>;
}): void {
  const after = result.plan;
  const beforeByIndex = new Map(before.steps.map((step) => [step.index, step] as const));
  const afterByIndex = new Map(after.steps.map((step) => [step.index, step] as const));

  // (6) stale results change nothing
  if ((event.type === "run-finished" || event.type === "run-lost") && event.runId === "stale-run") {
    expect(after).toEqual(before);
    expect(result.commands).toEqual([]);
    expect(result.changedSteps).toEqual([]);
  }

  // changedSteps is exactly the set of steps that differ
  const differing = after.steps.filter((step) => !beforeByIndex.has(step.index) || !sameStep(beforeByIndex.get(step.index)!, step)).map((step) => step.index);
  expect([...result.changedSteps].sort((a, b) => a - b)).toEqual(differing.sort((a, b) => a - b));

  const dispatched = new Set<number>();
  for (const command of result.commands) {
    if (command.type === "dispatch" || command.type === "open-form") {
      // (1) never a step already running: only one that was pending, just appended, or
      // failed and retried by this very event
      const previous = beforeByIndex.get(command.stepIndex);
      const retried =
        previous?.status === "failed" &&
        eventStepIndex(event) === command.stepIndex &&
        (event.type === "retry-step" || (event.type === "commander-decision" && event.decision.kind === "retry"));
      expect(previous === undefined || previous.status === "pending" || retried).toBe(true);
      expect(dispatched.has(command.stepIndex)).toBe(false);
      dispatched.add(command.stepIndex);
      // (2) never before every step it waits for is done or skipped
      const step = afterByIndex.get(command.stepIndex)!;
      for (const upstream of step.waitFor) expect(isSuccessfulEnough(afterByIndex.get(upstream)!.status)).toBe(true);
    }
    if (command.type === "dispatch" || command.type === "resume") {
      expect(seenRunIds.has(command.runId)).toBe(false);
      seenRunIds.add(command.runId);
      expect(afterByIndex.get(command.stepIndex)!.liveRunId).toBe(command.runId);
    }
    if (command.type === "resume") expect(beforeByIndex.get(command.stepIndex)!.status).toBe("blocked");
  }

  // (3) bounded concurrency: per plan, per agent, per model
  const live = after.steps.filter((step) => step.status === "in_progress");
  expect(live.length).toBeLessThanOrEqual(after.maxParallel);
  for (const [handle, pool] of Object.entries(capacity.agents)) {
    expect(pool.live + live.filter((step) => step.assignee === handle).length).toBeLessThanOrEqual(pool.limit);
  }
  for (const [model, pool] of Object.entries(capacity.models)) {
    expect(pool.live + live.filter((step) => capacity.agentModel[step.assignee] === model).length).toBeLessThanOrEqual(pool.limit);
  }
  for (const step of live) expect(step.liveRunId).not.toBeNull();

  const ended = result.commands.filter((command) => command.type === "plan-ended");
  if (isTerminalPlan(after.status)) {
    // (5) an ending (abort, cancel, natural) leaves nothing open and cancels exactly the other live runs
    if (!isTerminalPlan(before.status)) {
      expect(ended).toEqual([{ type: "plan-ended", status: after.status }]);
      const eventStep = eventStepIndex(event);
      for (const previous of before.steps) {
        if (isTerminalStep(previous.status) || previous.index === eventStep) continue;
        expect(afterByIndex.get(previous.index)!.status).toBe("skipped");
      }
      const eventRun = "runId" in event ? event.runId : null;
      const expectedCancels = before.steps
        .filter((step) => step.status === "in_progress" && step.liveRunId !== eventRun)
        .map((step) => step.liveRunId)
        .sort();
      const cancels = result.commands.flatMap((command) => (command.type === "cancel-run" ? [command.runId] : [])).sort();
      expect(cancels).toEqual(expectedCancels);
    }
    for (const step of after.steps) {
      expect(isTerminalStep(step.status)).toBe(true);
      expect(step.decisionPending).toBe(false);
    }
    if (after.status === "completed") expect(after.steps.every((step) => isSuccessfulEnough(step.status))).toBe(true);
  } else {
    expect(ended).toEqual([]);
    expect(after.status === "paused").toBe(after.steps.some((step) => step.status === "blocked"));
    // a retry in backoff always has a tick coming
    const retries = after.steps.filter((step) => step.status === "pending" && step.retryAt !== null && step.retryAt > now).map((step) => step.retryAt!);
    if (retries.length > 0 && result.changedSteps.length > 0) {
      expect(result.commands).toContainEqual({ type: "schedule-tick", at: Math.min(...retries) });
    }
  }
}

function simulate(scenario: Scenario): { events: number; final: PlanState } {
  const driver = makeDriver(scenario.seed);
  const capacity = deepFreeze(buildCapacity(scenario));
  let plan = buildPlan(scenario);
  let now = 1_000_000;
  let runCounter = 0;
  const newRunId = () => `run-${++runCounter}`;
  const seenRunIds = new Set<string>();
  const decisions = new Map<number, number>();
  let event: PlanEvent | null = { type: "plan-created" };
  let events = 0;
  while (event !== null && events < MAX_EVENTS) {
    events += 1;
    if (event.type === "tick") {
      const retries = plan.steps.filter((step) => step.status === "pending" && step.retryAt !== null).map((step) => step.retryAt!);
      if (retries.length > 0) now = Math.max(now, Math.min(...retries));
    }
    const before = deepFreeze(plan);
    // (7) the frozen input would throw on any mutation
    const result = reconcile({ plan: before, event: deepFreeze(event), now, random: driver.random, newRunId, capacity });
    checkInvariants({ before, event, result, capacity, now, seenRunIds });
    plan = result.plan;
    if (isTerminalPlan(plan.status)) break;
    now += Math.floor(driver.random() * 50);
    event = chooseEvent(driver, plan, events >= WIND_DOWN_AFTER, decisions);
  }
  return { events, final: plan };
}

describe("reconcile properties", () => {
  it("holds every invariant under random DAGs and random drivers, and always terminates", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { events, final } = simulate(scenario);
        expect(events).toBeLessThan(MAX_EVENTS);
        // (4) the driver ends with the plan ended and every step terminal
        expect(isTerminalPlan(final.status)).toBe(true);
        for (const step of final.steps) expect(isTerminalStep(step.status)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("an abort_plan failure cascades exactly", () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.nat(), (scenario, choice) => {
        const plan = reconcile({
          plan: buildPlan(scenario),
          event: { type: "plan-created" },
          now: 0,
          random: () => 0.5,
          newRunId: (() => { let n = 0; return () => `r${++n}`; })(),
          capacity: buildCapacity(scenario),
        }).plan;
        const live = plan.steps.filter((step) => step.status === "in_progress");
        if (live.length === 0) return;
        const victim = live[choice % live.length];
        const frozen = deepFreeze({ ...plan, steps: plan.steps.map((step) => (step === victim ? { ...step, onFailure: "abort_plan" as const } : step)) });
        const result = reconcile({
          plan: frozen,
          event: { type: "run-finished", stepIndex: victim.index, runId: victim.liveRunId!, outcome: { kind: "failed", transient: false, reason: "fatal" } },
          now: 1,
          random: () => 0.5,
          newRunId: () => "unused",
          capacity: buildCapacity(scenario),
        });
        expect(result.plan.status).toBe("failed");
        for (const step of result.plan.steps) {
          const previous = frozen.steps.find((candidate) => candidate.index === step.index)!;
          if (step.index === victim.index) expect(step.status).toBe("failed");
          else if (!isTerminalStep(previous.status)) expect(step).toMatchObject({ status: "skipped", failureReason: `plan aborted: step ${victim.index} failed` });
          else expect(step).toEqual(previous);
        }
        expect(result.commands.filter((command) => command.type === "cancel-run")).toHaveLength(live.length - 1);
        expect(result.commands.at(-1)).toEqual({ type: "plan-ended", status: "failed" });
      }),
      { numRuns: 200 },
    );
  });
});
