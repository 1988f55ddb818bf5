/**
 * What a step needs from the steps it waits for. Three kinds of edge:
 * - required (default): the dependency must be done or skipped, or have failed under
 *   on_failure `continue` (which lets its dependants proceed without its output);
 * - optional: the dependency must merely have ended — done, skipped, or failed with
 *   no decision coming — so a failed side branch does not hold its consumer;
 * - quorum k ("any k of these"): k dependencies done, skipped or failed under
 *   `continue` are enough, whatever the others are doing; the optional marks do not
 *   matter then, every entry counts — except the stragglers this very step released
 *   ("not needed: quorum of step k reached"): they did nothing, and once a counted
 *   dependency is retried (a continue failure can be) the quorum must be reached anew.
 */
import { notNeededReason } from "./outcome.ts";
import { isContinuedFailure, isSuccessfulEnough } from "./status.ts";
import type { StepState } from "./types.ts";

/** The fields of a dependency that the rules read. */
export type DependencyView = Pick<StepState, "status" | "decisionPending" | "onFailure" | "failureReason">;
/** The fields of a dependent step that the rules read. */
export type DependentView = Pick<StepState, "index" | "waitFor" | "optionalWaitFor" | "quorum">;

/**
 * The dependency has ended for good as far as an optional edge is concerned: done,
 * skipped, or failed with no commander decision pending (a pending decision may
 * still retry it, so the consumer waits for that).
 */
export function hasSettled(dependency: DependencyView): boolean {
  return isSuccessfulEnough(dependency.status) || (dependency.status === "failed" && !dependency.decisionPending);
}

/**
 * Its dependants may proceed past it: it is done, skipped, or failed under
 * `continue` (before that policy left the step "skipped", and these counted alike).
 */
function letsDependantsProceed(dependency: DependencyView): boolean {
  return isSuccessfulEnough(dependency.status) || isContinuedFailure(dependency);
}

/** The dependency has failed, nothing will revive it, and its policy holds its dependants. */
export function isDeadEnd(dependency: DependencyView): boolean {
  return dependency.status === "failed" && !dependency.decisionPending && dependency.onFailure !== "continue";
}

/**
 * Whether `step`'s dependencies allow it to start (status and retry time aside).
 * A dependency index that does not resolve never counts as met; validation makes
 * that impossible for stored plans.
 */
export function requirementMet(step: DependentView, lookup: (index: number) => DependencyView | undefined): boolean {
  if (step.quorum !== null) {
    const releasedHere = notNeededReason(step.index);
    let succeeded = 0;
    for (const index of step.waitFor) {
      const dependency = lookup(index);
      if (dependency && letsDependantsProceed(dependency) && dependency.failureReason !== releasedHere) succeeded += 1;
    }
    return succeeded >= step.quorum;
  }
  const optional = new Set(step.optionalWaitFor);
  return step.waitFor.every((index) => {
    const dependency = lookup(index);
    if (!dependency) return false;
    return optional.has(index) ? hasSettled(dependency) : letsDependantsProceed(dependency);
  });
}

/**
 * Whether `step` can still meet its requirement, given which dependencies are dead
 * (failed for good, or doomed themselves). Required edge: one dead dependency dooms
 * the step. Optional edge: never dooms it. Quorum k: doomed once fewer than k
 * dependencies are left alive. Returns the dead dependency to blame, or null when
 * the requirement is still reachable.
 */
export function unreachableBecause(
  step: Pick<StepState, "waitFor" | "optionalWaitFor" | "quorum">,
  isDead: (index: number) => boolean,
): number | null {
  const dead = step.waitFor.filter(isDead);
  if (dead.length === 0) return null;
  if (step.quorum !== null) return step.waitFor.length - dead.length < step.quorum ? dead[0] : null;
  const optional = new Set(step.optionalWaitFor);
  return dead.find((index) => !optional.has(index)) ?? null;
}
