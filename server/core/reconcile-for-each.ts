/**
 * Reconcile's for_each passes: expanding a ready for_each step into child steps,
 * completing it once its children have ended, ending the children of a for_each
 * step that was skipped, and retrying only the failed items. The pure pieces are in
 * for-each.ts.
 *
 * Semantics (the tests pin each one):
 * - Expansion happens instead of dispatch, never while the plan is paused, and before
 *   budget refusals (an expansion can abort the plan, and an abort wins over asking);
 *   a for_each step a budget forbids is left to the refusal, which asks once. Children get new indexes after
 *   the plan's highest; nothing is renumbered. The parent becomes a collector: in
 *   progress with no run, so it takes no slot and gets no cancel-run.
 * - A list longer than MAX_FOR_EACH_ITEMS is a real failure of the parent (its
 *   on_failure applies); an empty one completes it at once with "(no items)".
 * - A child's failure follows its inherited on_failure, except that ask_commander
 *   is deferred to the parent (handleFailure): one decision for the whole list
 *   instead of one per item. A child refused for its budget still asks itself, as
 *   every budget refusal does, and the parent waits for that decision.
 * - The parent completes when every child has ended: all done, skipped or failed under
 *   continue → done with the collected summary; otherwise it fails "k of n items
 *   failed" and its own on_failure applies.
 * - Retrying the parent (commander or member) re-runs only its failed children; a new
 *   input or assignee applies to those children (and the parent, for the record).
 * - Skipping the parent (commander, member, quorum straggler) skips every
 *   child that has not succeeded, stopping their runs, so a plan whose only failures
 *   were skipped can still complete.
 */
import { budgetRefusal } from "./budget.ts";
import {
  childrenSettled,
  childSpec,
  collectedFiles,
  collectedSummary,
  forEachItems,
  MAX_FOR_EACH_ITEMS,
  NO_ITEMS_SUMMARY,
} from "./for-each.ts";
import { findStep, stepStateFromSpec } from "./plan-state.ts";
import { readySteps } from "./readiness.ts";
import { dropAsk, handleFailure, note, releaseRuns, resetForRetry, skipStep, type Working } from "./reconcile-context.ts";
import { isContinuedFailure, isTerminalPlan } from "./status.ts";
import { substituteItem } from "./templates.ts";
import { USER_ASSIGNEE, type StepState } from "./types.ts";

function childrenOf(working: Working, parent: StepState): (StepState | undefined)[] {
  return (parent.expansion?.children ?? []).map((index) => findStep(working.plan, index));
}

/** The fence label for items read from an untrusted source, or null to insert them plainly. */
function untrustedSourceOf(working: Working, parent: StepState): string | null {
  if (parent.forEach === null) return null;
  const source = findStep(working.plan, parent.forEach.from);
  return source?.outputUntrusted ? `step_${source.index}` : null;
}

/**
 * Expand every for_each step that is ready now. Returns whether any was expanded (or
 * ended without children), so the caller can run its passes again: an empty list
 * completes the step at once, which may make its downstream ready in this reconcile.
 * A step that a budget forbids to start stays pending for refuseOverBudget, which
 * then asks the commander once, instead of expanding into children refused one by one.
 */
export function expandReady(working: Working): boolean {
  let acted = false;
  for (const parent of readySteps(working.plan, working.now)) {
    if (parent.forEach === null) continue;
    if (parent.assignee !== USER_ASSIGNEE && budgetRefusal(working.plan, parent) !== null) continue;
    acted = true;
    expand(working, parent);
    if (isTerminalPlan(working.plan.status)) break;
  }
  return acted;
}

function expand(working: Working, parent: StepState): void {
  const forEach = parent.forEach!;
  const source = findStep(working.plan, forEach.from);
  const items = source ? forEachItems(source, forEach.field) : [];
  if (items.length > MAX_FOR_EACH_ITEMS) {
    handleFailure(working, parent, {
      transient: false,
      reason: `for_each: step ${forEach.from} listed ${items.length} items (${forEach.field}); the limit is ${MAX_FOR_EACH_ITEMS}`,
    });
    return;
  }
  parent.startedAt ??= working.now;
  parent.retryAt = null;
  parent.liveRunId = null;
  parent.failureReason = null;
  if (items.length === 0) {
    parent.status = "done";
    parent.expansion = { children: [], items: [] };
    parent.outputSummary = NO_ITEMS_SUMMARY;
    parent.outputFiles = [];
    parent.outputUntrusted = false;
    parent.endedAt = working.now;
    note(working, parent.index, `for_each: step ${forEach.from} listed no items (${forEach.field}); done`);
    return;
  }
  const first = Math.max(...working.plan.steps.map((step) => step.index)) + 1;
  const untrustedSource = untrustedSourceOf(working, parent);
  const children = items.map((item, i) => {
    const spec = childSpec({ parent, index: first + i, item, itemIndex: i + 1, count: items.length, untrustedSource });
    return { ...stepStateFromSpec(spec), parentIndex: parent.index };
  });
  working.plan.steps.push(...children);
  parent.status = "in_progress";
  parent.expansion = { children: children.map((child) => child.index), items };
  parent.outputSummary = null;
  parent.outputFiles = [];
  parent.endedAt = null;
  const bound = forEach.maxParallel === null ? "" : `, at most ${forEach.maxParallel} at once`;
  note(
    working,
    parent.index,
    `for_each: ${items.length} items from step ${forEach.from} (${forEach.field}) as steps ${first}-${first + items.length - 1}${bound}`,
  );
}

/**
 * Complete every collecting for_each step whose children have all ended (and await
 * no decision): done with the collected summary, or failed "k of n items failed"
 * with the parent's own on_failure.
 */
export function collectExpansions(working: Working): void {
  for (const parent of [...working.plan.steps].sort((a, b) => a.index - b.index)) {
    if (parent.status !== "in_progress" || parent.expansion === null) continue;
    const children = childrenOf(working, parent);
    if (!childrenSettled(children)) continue;
    const items = parent.expansion.items;
    parent.outputSummary = collectedSummary(items, children);
    parent.outputFiles = collectedFiles(children);
    // an item that failed under continue shows as failed in the summary but, as when such
    // items were skipped, does not fail the list
    const failed = parent.expansion.children.filter((_, i) => {
      const child = children[i];
      return child?.status === "failed" && !isContinuedFailure(child);
    });
    if (failed.length === 0) {
      const source = parent.forEach === null ? undefined : findStep(working.plan, parent.forEach.from);
      parent.status = "done";
      // the items themselves are in the summary, so an untrusted list taints it too
      parent.outputUntrusted = children.some((child) => child?.outputUntrusted) || (source?.outputUntrusted ?? false);
      parent.failureReason = null;
      parent.endedAt = working.now;
      note(working, parent.index, `for_each: collected ${items.length} items; done`);
      if (isTerminalPlan(working.plan.status)) return;
      continue;
    }
    handleFailure(working, parent, {
      transient: false,
      reason: `${failed.length} of ${items.length} items failed (steps ${failed.join(", ")})`,
    });
    if (isTerminalPlan(working.plan.status)) return;
  }
}

/**
 * A for_each step that was skipped takes its unfinished and failed children with it:
 * their runs stop (unless a twin still shares them) and their decisions are dropped.
 * A failed child keeps its own reason.
 */
export function closeSkippedExpansions(working: Working): void {
  for (const parent of working.plan.steps) {
    if (parent.status !== "skipped" || parent.expansion === null) continue;
    const runs: string[] = [];
    for (const child of childrenOf(working, parent)) {
      if (!child || child.status === "done" || child.status === "skipped") continue;
      if (child.status === "in_progress" && child.liveRunId !== null) runs.push(child.liveRunId);
      if (child.decisionPending) dropAsk(working, child);
      const reason = child.status === "failed" ? child.failureReason : `for_each step ${parent.index} was skipped`;
      skipStep(working, child, reason);
      note(working, child.index, `skipped with for_each step ${parent.index}`);
    }
    releaseRuns(working, runs);
  }
}

/**
 * A retry of a failed step (commander or member), with an optional new input or
 * assignee. An ordinary step goes back to pending. An expanded for_each step goes
 * back to collecting and re-runs only its failed children, with the new template
 * re-applied to their items; its done and skipped items are kept.
 */
export function retryStep(working: Working, step: StepState, change: { input?: string; assignee?: string } = {}): void {
  if (change.input !== undefined) step.input = change.input;
  if (change.assignee !== undefined) step.assignee = change.assignee;
  if (step.expansion === null) {
    resetForRetry(step);
    return;
  }
  const untrustedSource = untrustedSourceOf(working, step);
  const rerun: number[] = [];
  step.expansion.children.forEach((index, i) => {
    const child = findStep(working.plan, index);
    if (!child || child.status !== "failed") return;
    resetForRetry(child);
    if (change.input !== undefined) {
      child.input = substituteItem({ template: step.input, item: step.expansion!.items[i], itemIndex: i + 1, untrustedSource });
    }
    if (change.assignee !== undefined) child.assignee = change.assignee;
    rerun.push(index);
  });
  resetForRetry(step);
  step.status = "in_progress";
  step.outputSummary = null;
  step.outputFiles = [];
  note(working, step.index, `for_each: re-runs the failed items (steps ${rerun.join(", ") || "none"})`);
}
