/**
 * Which steps may start now. Reconcile re-computes this after every event; it is
 * never polled.
 */
import { requirementMet } from "./dependencies.ts";
import type { PlanState, StepState } from "./types.ts";

/**
 * Steps that may be dispatched at `now`: pending, past any retry backoff, and their
 * dependencies allow it (see dependencies.ts: required edges done or skipped,
 * optional edges ended, or a quorum of k reached). Sorted by index (dispatch order).
 * Capacity and budgets are not considered here; reconcile applies them.
 */
export function readySteps(plan: Pick<PlanState, "steps">, now: number): StepState[] {
  const byIndex = new Map(plan.steps.map((step) => [step.index, step] as const));
  return plan.steps
    .filter((step) => {
      if (step.status !== "pending") return false;
      if (step.retryAt !== null && step.retryAt > now) return false;
      return requirementMet(step, (index) => byIndex.get(index));
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
