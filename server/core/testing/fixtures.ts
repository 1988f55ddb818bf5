/**
 * Test-only builders shared by the core's tests (never imported by production
 * code): plans from terse step lists, and a reconcile call with deterministic
 * time, randomness and run ids.
 */
import { reconcile } from "../reconcile.ts";
import { stepStateFromSpec } from "../plan-state.ts";
import type { Budget, CapacityView, PlanEvent, PlanState, ReconcileResult, StepSpec, StepState } from "../types.ts";

export const NOW = 1_000_000;

export const EMPTY_CAPACITY: CapacityView = { agents: {}, models: {}, agentModel: {} };

type StepInit = Partial<StepState> & { index: number };

/** A step with sensible defaults: assignee "writer", waits for the previous step, ask_commander. */
export function makeStep(init: StepInit): StepState {
  const spec: StepSpec = {
    index: init.index,
    title: init.title ?? `step ${init.index}`,
    assignee: init.assignee ?? "writer",
    input: init.input ?? `do part ${init.index}`,
    waitFor: init.waitFor ?? (init.index > 1 ? [init.index - 1] : []),
    optionalWaitFor: init.optionalWaitFor ?? [],
    quorum: init.quorum ?? null,
    onFailure: init.onFailure ?? "ask_commander",
    maxRetries: init.maxRetries ?? 3,
    budget: init.budget ?? { maxTokens: null, maxCost: null },
    forEach: init.forEach ?? null,
  };
  return { ...stepStateFromSpec(spec), ...init };
}

export function makePlan({
  steps,
  maxParallel = 3,
  status = "running",
  request = "the request",
  budget = { maxTokens: null, maxCost: null },
}: {
  steps: StepInit[];
  maxParallel?: number;
  status?: PlanState["status"];
  request?: string;
  budget?: Budget;
}): PlanState {
  return { id: "plan-1", status, maxParallel, budget, request, steps: steps.map(makeStep) };
}

/** A StepSpec for an appended step: no optional edges, no quorum, no budget unless given. */
export function makeSpec(init: Partial<StepSpec> & { index: number }): StepSpec {
  return {
    title: `step ${init.index}`,
    assignee: "writer",
    input: `do part ${init.index}`,
    waitFor: [],
    optionalWaitFor: [],
    quorum: null,
    onFailure: "continue",
    maxRetries: 1,
    budget: { maxTokens: null, maxCost: null },
    forEach: null,
    ...init,
  };
}

/** A step that is running as run `run-<index>`. */
export function live(index: number, init: Partial<StepState> = {}): StepInit {
  return { index, status: "in_progress", attempts: 1, liveRunId: `run-${index}`, startedAt: NOW - 10, ...init };
}

export function done(index: number, init: Partial<StepState> = {}): StepInit {
  return { index, status: "done", attempts: 1, outputSummary: `summary ${index}`, endedAt: NOW - 5, ...init };
}

export function runIds(prefix = "new-run"): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

export function run(
  plan: PlanState,
  event: PlanEvent,
  options: {
    now?: number;
    random?: () => number;
    capacity?: CapacityView;
    newRunId?: () => string;
    unavailable?: ReadonlyMap<string, string>;
  } = {},
): ReconcileResult {
  return reconcile({
    plan: deepFreeze(structuredClone(plan)),
    event: deepFreeze(structuredClone(event)),
    now: options.now ?? NOW,
    random: options.random ?? (() => 0.5),
    newRunId: options.newRunId ?? runIds(),
    capacity: options.capacity ?? EMPTY_CAPACITY,
    ...(options.unavailable ? { unavailable: options.unavailable } : {}),
  });
}

export function stepOf(result: { plan: PlanState } | PlanState, index: number): StepState {
  const plan = "plan" in result ? result.plan : result;
  const step = plan.steps.find((candidate) => candidate.index === index);
  if (!step) throw new Error(`no step ${index}`);
  return step;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
