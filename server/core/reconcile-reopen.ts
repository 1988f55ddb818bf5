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
  return plan.steps.find((other) => other.waitFor.includes(step.index) && isOpenCollector(other));
}

/** A for_each step that made its items and has not ended for good (done or skipped). */
function isOpenCollector(step: StepState): boolean {
  return step.expansion !== null && step.status !== "done" && step.status !== "skipped";
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
  const reopening = step ? stepsToReopen(working.plan, step) : null;
  const refused = refusal(step) ?? (reopening && "refusal" in reopening ? reopening.refusal : null);
  if (refused !== null || !step || !reopening || "refusal" in reopening) {
    note(working, step ? step.index : stepIndex, refused ?? `step ${stepIndex} does not exist in this plan`);
    return "ignored";
  }
  const ended = working.plan.status;
  if (step.status === "failed") retryStep(working, step);
  else resetForRetry(step);
  for (const other of reopening.others) resetForRetry(other);
  const reopened = [step.index, ...reopening.others.map((other) => other.index)];
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
 * What reopening `root` brings back besides it, or why it cannot:
 * - the steps skipped because of it: skipped, waiting (directly or through another such
 *   step) for it, top-level and never expanded. Index order visits upstream first
 *   (wait_for only names earlier steps), so one pass covers whole chains;
 * - for each of these that is a quorum step going back to pending, the stragglers it let
 *   go: it must reach its quorum again by work done (they do not count for it, and left
 *   skipped they would never come back). A straggler that had made its items, or is an
 *   item itself (a step the commander appended may wait for one), cannot come back
 *   alone: that is a re-run. A for_each step retried with its items keeps its
 *   quorum (what it counted is unchanged), so its stragglers stay skipped;
 * - refused when a for_each step outside these made its items past one of them: retried,
 *   it would re-run them while that step is running again (see collectorPast).
 */
function stepsToReopen(plan: PlanState, root: StepState): { others: StepState[] } | { refusal: string } {
  const reopened = new Map([[root.index, root]]);
  for (const step of [...plan.steps].sort((a, b) => a.index - b.index)) {
    if (step.status !== "skipped" || step.parentIndex !== null || step.expansion !== null) continue;
    if (!step.waitFor.some((index) => reopened.has(index))) continue;
    reopened.set(step.index, step);
  }
  const consumers = [...reopened.values()].filter((step) => step.quorum !== null && step.expansion === null);
  for (let consumer = consumers.pop(); consumer !== undefined; consumer = consumers.pop()) {
    for (const index of consumer.waitFor) {
      const straggler = findStep(plan, index);
      if (!straggler || reopened.has(index) || straggler.status !== "skipped") continue;
      if (straggler.failureReason !== notNeededReason(consumer.index)) continue;
      // an item comes back only with its list, and a list's items cannot be made again
      if (straggler.parentIndex !== null || straggler.expansion !== null) {
        const what = straggler.parentIndex !== null ? `is an item of for_each step ${straggler.parentIndex}` : "had made its items";
        return { refusal: `step ${index}, which step ${consumer.index} let go, ${what}; re-run the plan` };
      }
      reopened.set(index, straggler);
      if (straggler.quorum !== null) consumers.push(straggler);
    }
  }
  for (const step of reopened.values()) {
    const collector = plan.steps.find(
      (other) => !reopened.has(other.index) && other.waitFor.includes(step.index) && isOpenCollector(other),
    );
    if (collector) return { refusal: collectorRefusal(step, collector) };
  }
  reopened.delete(root.index);
  return { others: [...reopened.values()].sort((a, b) => a.index - b.index) };
}
