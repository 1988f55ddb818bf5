/**
 * Reopening an ended plan (a member's retry after the plan failed, was cancelled or
 * ended partial): the step goes back to pending with a fresh retry budget, every step
 * that was skipped because of it (its skipped dependants, transitively) too, with the
 * stragglers a reopened quorum step had let go, and the plan runs again. Done steps keep their output; other failed steps stay failed
 * until someone retries them as well.
 */
import { budgetRefusal } from "./budget.ts";
import { isDeadEnd, unreachableBecause } from "./dependencies.ts";
import { notNeededReason } from "./outcome.ts";
import { findStep } from "./plan-state.ts";
import { note, resetForRetry, type Working } from "./reconcile-context.ts";
import { retryStep } from "./reconcile-for-each.ts";
import { isTerminalPlan } from "./status.ts";
import { USER_ASSIGNEE, type PlanState, type StepState } from "./types.ts";

/**
 * A for_each step that made its items while `step` had ended (failed under continue,
 * failed on an optional edge, or counted towards its quorum) and that may still collect
 * again: a retry of it re-runs its items at once, without waiting. Were `step` running
 * again by then, those items would start before their step's requirement held, so
 * `step` is not retried while such a dependant exists (retry that one, or re-run the plan).
 * Ordinary dependants need no guard: they restart through pending and wait again.
 */
export function collectorPast(plan: PlanState, step: StepState): StepState | undefined {
  return plan.steps.find(
    (other) => other.waitFor.includes(step.index) && other.expansion !== null && other.status !== "done" && other.status !== "skipped",
  );
}

export function reopenStep(working: Working, stepIndex: number): "applied" | "ignored" {
  const refusal = (step: StepState | undefined): string | null => {
    if (!step) return `step ${stepIndex} does not exist in this plan`;
    if (!isTerminalPlan(working.plan.status))
      return `the plan is ${working.plan.status}; retry or skip the step instead of reopening the plan`;
    if (step.parentIndex !== null)
      return `step ${step.index} is an item of for_each step ${step.parentIndex}; retry step ${step.parentIndex}`;
    if (step.status !== "failed" && step.status !== "skipped")
      return `step ${step.index} is ${step.status.replace("_", " ")}; only a failed or skipped step can be retried`;
    // its items were closed with it; making them again is a re-run of the plan
    if (step.status === "skipped" && step.expansion !== null)
      return `step ${step.index} was skipped after its items were made; re-run the plan`;
    const collector = collectorPast(working.plan, step);
    if (collector) return collectorRefusal(step, collector);
    const blame = unreachableBecause(step, (index) => {
      const upstream = findStep(working.plan, index);
      return upstream !== undefined && isDeadEnd(upstream);
    });
    if (blame !== null) return `step ${step.index} waits for step ${blame}, which failed; retry step ${blame} first`;
    // a budget that is spent would refuse it again at once: only a re-run starts afresh
    const spent = step.assignee === USER_ASSIGNEE ? null : budgetRefusal(working.plan, step);
    return spent === null ? null : `step ${step.index} cannot run again: ${spent}; re-run the plan instead`;
  };
  const step = findStep(working.plan, stepIndex);
  const refused = refusal(step);
  if (refused !== null || !step) {
    note(working, step ? step.index : stepIndex, refused ?? `step ${stepIndex} does not exist in this plan`);
    return "ignored";
  }
  const ended = working.plan.status;
  if (step.status === "failed") retryStep(working, step);
  else resetForRetry(step);
  const reopened = [step.index, ...reopenSkippedDependants(working, step.index)];
  working.plan.status = "running";
  note(
    working,
    step.index,
    `plan reopened (it was ${ended}): step${reopened.length > 1 ? "s" : ""} ${reopened.join(", ")} back to pending`,
  );
  return "applied";
}

/** Why `step` is not retried while `collector` went on past it. */
export function collectorRefusal(step: StepState, collector: StepState): string {
  return `for_each step ${collector.index} made its items without step ${step.index}; retry step ${collector.index} or re-run the plan`;
}

/**
 * The steps that were skipped because of `root`: skipped, waiting (directly or through
 * another such step) for it, top-level and never expanded. Index order visits upstream
 * first (wait_for only names earlier steps), so one pass covers whole chains.
 */
function reopenSkippedDependants(working: Working, root: number): number[] {
  const reopened = new Set([root]);
  for (const step of [...working.plan.steps].sort((a, b) => a.index - b.index)) {
    if (step.status !== "skipped" || step.parentIndex !== null || step.expansion !== null) continue;
    if (!step.waitFor.some((index) => reopened.has(index))) continue;
    resetForRetry(step);
    reopened.add(step.index);
  }
  // a reopened quorum step must reach its quorum again: the stragglers it let go come back
  // too (left skipped, they would count towards it without having done anything)
  for (const consumer of working.plan.steps) {
    if (!reopened.has(consumer.index) || consumer.quorum === null) continue;
    for (const index of consumer.waitFor) {
      const dependency = findStep(working.plan, index);
      if (dependency?.status !== "skipped" || dependency.failureReason !== notNeededReason(consumer.index)) continue;
      resetForRetry(dependency);
      reopened.add(dependency.index);
    }
  }
  reopened.delete(root);
  return [...reopened].sort((a, b) => a - b);
}
