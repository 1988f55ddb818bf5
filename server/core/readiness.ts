/**
 * Which steps may start now. Reconcile re-computes this after every event; it is
 * never polled.
 */
import { isSuccessfulEnough } from "./status.ts";
import type { PlanState, StepState } from "./types.ts";

/**
 * Steps that may be dispatched at `now`: pending, past any retry backoff, and every
 * step they wait for is done or skipped. Sorted by index (dispatch order).
 * Capacity is not considered here; reconcile applies the pools.
 */
export function readySteps(plan: Pick<PlanState, "steps">, now: number): StepState[] {
  const byIndex = new Map(plan.steps.map((step) => [step.index, step] as const));
  return plan.steps
    .filter((step) => {
      if (step.status !== "pending") return false;
      if (step.retryAt !== null && step.retryAt > now) return false;
      return step.waitFor.every((upstream) => {
        const dependency = byIndex.get(upstream);
        return dependency !== undefined && isSuccessfulEnough(dependency.status);
      });
    })
    .sort((a, b) => a.index - b.index);
}

/** The earliest retry time among pending steps in backoff, or null when none waits. */
export function nextRetryAt(plan: Pick<PlanState, "steps">): number | null {
  let earliest: number | null = null;
  for (const step of plan.steps) {
    if (step.status === "pending" && step.retryAt !== null && (earliest === null || step.retryAt < earliest)) {
      earliest = step.retryAt;
    }
  }
  return earliest;
}
