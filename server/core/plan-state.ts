/**
 * Building runtime state from a validated spec, and small lookups over it.
 */
import type { PlanSpec, PlanState, StepSpec, StepState } from "./types.ts";

/** A fresh, never-dispatched step. */
export function stepStateFromSpec(spec: StepSpec): StepState {
  return {
    ...spec,
    waitFor: [...spec.waitFor],
    optionalWaitFor: [...spec.optionalWaitFor],
    budget: { ...spec.budget },
    forEach: spec.forEach === null ? null : { ...spec.forEach },
    status: "pending",
    attempts: 0,
    transientFailures: 0,
    retryAt: null,
    outputSummary: null,
    outputFiles: [],
    outputUntrusted: false,
    failureReason: null,
    liveRunId: null,
    hedgeRunId: null,
    hedgeModel: null,
    escalatedAttempt: null,
    escalationCause: null,
    decisionPending: false,
    decisionCount: 0,
    renderedInput: null,
    usage: { tokens: 0, cost: 0 },
    startedAt: null,
    endedAt: null,
    expansion: null,
    parentIndex: null,
  };
}

/**
 * The initial state of a validated plan: every step pending, status running.
 * Reconcile it with a `plan-created` event to dispatch the first steps.
 */
export function createPlanState({ id, request, spec }: { id: string; request: string; spec: PlanSpec }): PlanState {
  return {
    id,
    status: "running",
    maxParallel: spec.maxParallel,
    budget: { ...spec.budget },
    request,
    steps: spec.steps.map(stepStateFromSpec),
  };
}

/** The step with this index, if the plan has one. */
export function findStep<T extends Pick<StepState, "index">>(plan: { steps: readonly T[] }, index: number): T | undefined {
  return plan.steps.find((step) => step.index === index);
}
