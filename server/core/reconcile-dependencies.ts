/**
 * Reconcile's passes over dependency edges: steps that can never run are skipped so
 * the plan can end, and once a quorum step is ready the stragglers it no longer
 * needs are skipped (and their runs stopped) so they do not hold the plan.
 */
import { isDeadEnd, unreachableBecause } from "./dependencies.ts";
import { notNeededReason } from "./outcome.ts";
import { findStep } from "./plan-state.ts";
import { readySteps } from "./readiness.ts";
import { note, releaseRuns, skipStep, type Working } from "./reconcile-context.ts";
import { isTerminalStep } from "./status.ts";
import type { StepState } from "./types.ts";

/**
 * A pending step that can no longer meet its requirement (see
 * `unreachableBecause`) is skipped. Dead = failed with no decision pending, or
 * doomed itself in this pass; index order visits upstream first (wait_for only names
 * earlier steps), so one pass covers whole chains. The reason names the failed step
 * at the root of the chain.
 */
export function skipDoomedSteps(working: Working): void {
  const doomedBy = new Map<number, number>();
  for (const step of [...working.plan.steps].sort((a, b) => a.index - b.index)) {
    if (isDeadEnd(step)) doomedBy.set(step.index, step.index);
    if (step.status !== "pending") continue;
    const blame = unreachableBecause(step, (index) => doomedBy.has(index));
    if (blame === null) continue;
    const root = doomedBy.get(blame)!;
    const reason =
      step.quorum === null
        ? `upstream step ${root} failed`
        : `upstream step ${root} failed (quorum of ${step.quorum} can no longer be reached)`;
    skipStep(working, step, reason);
    doomedBy.set(step.index, root);
    note(working, step.index, `skipped: ${reason}`);
  }
}

/**
 * Open as far as needing its inputs goes: not ended, or failed with a decision
 * pending (the commander may retry it, and then it reads its dependencies again).
 */
function stillNeedsInputs(step: StepState): boolean {
  return !isTerminalStep(step.status) || step.decisionPending;
}

/**
 * For every quorum step that is ready now, each dependency still pending or in
 * progress that no other open step waits for directly is skipped as "not needed",
 * and its run cancelled unless another live step shares it. Blocked dependencies and
 * ones awaiting a decision are left alone: a person or the commander owns them.
 * Repeated until nothing more is released: releasing one straggler can leave another
 * that only it waited for unneeded, and that one must not be dispatched meanwhile.
 */
export function releaseStragglers(working: Working): void {
  while (releaseOnce(working));
}

/** One pass of releaseStragglers; returns whether it released anything. */
function releaseOnce(working: Working): boolean {
  let released = false;
  for (const consumer of readySteps(working.plan, working.now)) {
    if (consumer.quorum === null) continue;
    for (const index of consumer.waitFor) {
      const dependency = findStep(working.plan, index);
      if (!dependency || (dependency.status !== "pending" && dependency.status !== "in_progress")) continue;
      const neededElsewhere = working.plan.steps.some(
        (other) => other !== consumer && stillNeedsInputs(other) && other.waitFor.includes(index),
      );
      if (neededElsewhere) continue;
      const run = dependency.status === "in_progress" ? dependency.liveRunId : null;
      const reason = notNeededReason(consumer.index);
      skipStep(working, dependency, reason);
      note(working, index, `skipped: ${reason}`);
      if (run !== null) releaseRuns(working, [run]);
      released = true;
    }
  }
  return released;
}
