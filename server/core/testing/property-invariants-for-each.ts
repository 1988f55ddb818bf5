/**
 * Test-only (never imported by production code): the for_each invariants that
 * reconcile.property.test.ts checks after every reconcile, re-stated independently
 * of for-each.ts (item parsing aside: the driver's items never contain line breaks).
 */
import type { Coverage } from "./property-coverage.ts";
import { isTerminalPlan, isTerminalStep } from "../status.ts";
import type { PlanState, ReconcileResult, StepState } from "../types.ts";

function ensure(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

/** A for_each step collecting its children: in progress, but with no run of its own. */
export function isCollector(step: StepState): boolean {
  return step.status === "in_progress" && step.expansion !== null;
}

function flattened(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/** Failed for good under continue: the list goes on without it (it used to be skipped). */
const continuedPast = (child: StepState) => child.status === "failed" && child.onFailure === "continue" && !child.decisionPending;

/** A done parent: every child done, skipped or failed under continue, one summary line per item in order, every child file once. */
function checkCollected(parent: StepState, children: StepState[]): void {
  const items = parent.expansion!.items;
  ensure(
    children.every((child) => child.status === "done" || child.status === "skipped" || continuedPast(child)),
    () => `for_each step ${parent.index} done with a child still open or failed`,
  );
  if (items.length === 0) {
    ensure(parent.outputSummary === "(no items)", () => `for_each step ${parent.index} over no items reads ${parent.outputSummary}`);
    return;
  }
  const lines = (parent.outputSummary ?? "").split("\n");
  ensure(lines.length === items.length, () => `for_each step ${parent.index}: ${lines.length} summary lines for ${items.length} items`);
  items.forEach((item, i) => {
    const child = children[i];
    const result =
      child.status === "skipped"
        ? "(skipped)"
        : child.status === "failed"
          ? `(failed: ${flattened(child.failureReason ?? "no reason")})`
          : flattened(child.outputSummary ?? "");
    ensure(lines[i] === `${i + 1}. ${item}: ${result}`, () => `for_each step ${parent.index} line ${i + 1} is "${lines[i]}"`);
  });
  const files = [...new Set(children.flatMap((child) => child.outputFiles))];
  ensure(
    JSON.stringify(parent.outputFiles) === JSON.stringify(files),
    () => `for_each step ${parent.index} collected files ${parent.outputFiles.join(", ")}`,
  );
}

/**
 * After one reconcile: indexes stable, children listed by their parent and appended
 * after every earlier index, no for_each step ever run or dispatched, children of one
 * parent within its max_parallel, a done parent only with every child done or skipped
 * and one summary line per item in order, a failed one only once all children ended.
 */
export function checkForEachInvariants({
  before,
  after,
  result,
  now,
  coverage,
}: {
  before: PlanState;
  after: PlanState;
  result: ReconcileResult;
  now: number;
  coverage: Coverage;
}): void {
  const beforeByIndex = new Map(before.steps.map((step) => [step.index, step] as const));
  const afterByIndex = new Map(after.steps.map((step) => [step.index, step] as const));
  // indexes are stable: nothing disappears or is renumbered, nothing repeats
  ensure(afterByIndex.size === after.steps.length, () => "an index repeats");
  for (const step of before.steps) {
    const same = afterByIndex.get(step.index);
    ensure(same !== undefined && same.parentIndex === step.parentIndex, () => `step ${step.index} vanished or changed parent`);
  }
  const highestBefore = Math.max(0, ...before.steps.map((step) => step.index));

  for (const command of result.commands) {
    if (command.type === "dispatch" || command.type === "open-form" || command.type === "resume") {
      ensure(afterByIndex.get(command.stepIndex)!.forEach === null, () => `for_each step ${command.stepIndex} got a ${command.type}`);
    }
  }

  const paused = after.steps.some((step) => step.status === "blocked");
  for (const step of after.steps) {
    const previous = beforeByIndex.get(step.index);
    if (step.parentIndex !== null) {
      const parent = afterByIndex.get(step.parentIndex);
      ensure(
        step.forEach === null && parent?.expansion?.children.includes(step.index) === true,
        () => `child ${step.index} is not listed by its parent ${step.parentIndex}`,
      );
    }
    if (step.forEach === null) {
      ensure(step.expansion === null, () => `step ${step.index} expanded without for_each`);
      continue;
    }
    // a for_each step never runs itself
    ensure(step.liveRunId === null && step.renderedInput === null && step.attempts === 0, () => `for_each step ${step.index} ran`);
    if (step.failureReason?.startsWith("for_each:") && previous?.failureReason !== step.failureReason) {
      // too many items: failed, skipped (continue) or aborted, but never expanded
      ensure(step.expansion === null && step.status !== "pending", () => `for_each step ${step.index} failed its list after expanding`);
      coverage.tooManyItems += 1;
    }
    const expansion = step.expansion;
    if (expansion === null) {
      ensure(
        step.status !== "in_progress" && step.status !== "blocked" && step.status !== "done",
        () => `for_each step ${step.index} is ${step.status} without an expansion`,
      );
      continue;
    }
    ensure(
      expansion.children.length === expansion.items.length,
      () => `for_each step ${step.index}: ${expansion.children.length} children for ${expansion.items.length} items`,
    );
    const children = expansion.children.map((index) => afterByIndex.get(index)!);
    children.forEach((child, i) => {
      ensure(
        child !== undefined && child.parentIndex === step.index,
        () => `for_each step ${step.index} lists child ${expansion.children[i]}, which is not its own`,
      );
      ensure(i === 0 || child.index === children[i - 1].index + 1, () => `for_each step ${step.index}: children not consecutive`);
    });
    if (previous === undefined || previous.expansion === null) {
      // a fresh expansion appends after every index the plan had
      ensure(
        children.every((child) => child.index > highestBefore && !beforeByIndex.has(child.index)),
        () => `for_each step ${step.index} reused an index`,
      );
      if (children.length === 0) coverage.noItems += 1;
      else coverage.expanded += 1;
    }
    // children of the same parent never exceed its max_parallel live (in progress or blocked on a form)
    const liveChildren = children.filter((child) => child.status === "in_progress" || child.status === "blocked").length;
    const limit = step.forEach.maxParallel;
    ensure(
      limit === null || liveChildren <= limit,
      () => `for_each step ${step.index}: ${liveChildren} children live, max_parallel ${limit}`,
    );
    if (step.status === "done") {
      checkCollected(step, children);
      if (previous?.status !== "done" && children.length > 0) coverage.collected += 1;
    }
    if (step.status === "failed" && previous?.status !== "failed") {
      // it failed by collecting: all its children ended, and the reason counts the failed ones
      const failed = children.filter((child) => child.status === "failed" && !continuedPast(child)).length;
      ensure(
        children.every((child) => isTerminalStep(child.status) && !child.decisionPending),
        () => `for_each step ${step.index} failed with children open`,
      );
      ensure(
        step.failureReason?.startsWith(`${failed} of ${children.length} items failed`) === true,
        () => `for_each step ${step.index} failed: ${step.failureReason}`,
      );
      coverage.collectedFailed += 1;
    }
    if (step.status === "skipped" && !isTerminalPlan(after.status)) {
      // a skipped for_each step takes its unfinished and failed children with it (an abort or
      // cancel ends the plan instead: open children are skipped, failed ones stay failed)
      ensure(
        children.every((child) => child.status === "done" || child.status === "skipped"),
        () => `for_each step ${step.index} skipped with children open or failed`,
      );
    }
    if (isCollector(step) && limit !== null && liveChildren === limit && !paused && !isTerminalPlan(after.status)) {
      const held = children.some((child) => child.status === "pending" && (child.retryAt === null || child.retryAt <= now));
      if (held) coverage.childBoundHeld += 1;
    }
  }
}
