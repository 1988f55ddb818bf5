/**
 * for_each: one template mapped over a list produced upstream. This module holds
 * the pure pieces (reading the list, building children, folding their results back
 * into one summary); reconcile-for-each.ts applies them to a plan.
 *
 * Shape of an expanded step: the for_each step (the parent) never runs itself. When
 * it becomes ready it appends one child step per item, after the plan's highest
 * index, and waits as a "collector" (in progress, no run) until every child has
 * ended; then it completes with the children's summaries, one line per item.
 */
import { isTerminalStep } from "./status.ts";
import { substituteItem } from "./templates.ts";
import type { ForEachField, StepSpec, StepState } from "./types.ts";

/** A list longer than this fails the for_each step instead of fanning out without bound. */
export const MAX_FOR_EACH_ITEMS = 100;

/** The summary of a for_each step whose list was empty. */
export const NO_ITEMS_SUMMARY = "(no items)";

// "- x", "* x", "+ x", "• x", "1. x", "1) x": how models write lists; a bare marker is an empty item
const LIST_MARKER = /^(?:[-*+•]|\d+[.)])(?:\s+|$)/;

/**
 * The items a for_each step maps over, from its source step's output, complete (the
 * caller enforces MAX_FOR_EACH_ITEMS so it can report the real count). A source that
 * did not end done (skipped, or a failed optional dependency) lists nothing.
 * - output_files: the file list, empty names dropped;
 * - output_lines: the summary's lines, trimmed, one leading list marker stripped,
 *   empty lines dropped.
 */
export function forEachItems(source: Pick<StepState, "status" | "outputSummary" | "outputFiles">, field: ForEachField): string[] {
  if (source.status !== "done") return [];
  if (field === "output_files") return source.outputFiles.filter((file) => file.trim() !== "");
  return (source.outputSummary ?? "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim().replace(LIST_MARKER, "").trim())
    .filter((line) => line !== "");
}

/**
 * The child step for item number `itemIndex` (1-based) of `count`. It inherits what
 * governs running it (assignee, on_failure, retries, the step budget, which is
 * therefore per item) and the parent's dependencies, which are already met, so it is
 * ready at once. Its input has the item filled in and every other placeholder left
 * for dispatch, so upstream output renders as usual (and single-flight compares the
 * rendered text).
 */
export function childSpec({
  parent,
  index,
  item,
  itemIndex,
  count,
  untrustedSource,
}: {
  parent: StepState;
  index: number;
  item: string;
  itemIndex: number;
  count: number;
  untrustedSource: string | null;
}): StepSpec {
  return {
    index,
    title: `${parent.title} [${itemIndex}/${count}]`,
    assignee: parent.assignee,
    input: substituteItem({ template: parent.input, item, itemIndex, untrustedSource }),
    waitFor: [...parent.waitFor],
    // copied so a failed optional dependency of the parent does not doom its children
    optionalWaitFor: [...parent.optionalWaitFor],
    // validation keeps quorum off for_each steps; copied anyway so a child is never stricter than its parent
    quorum: parent.quorum,
    onFailure: parent.onFailure,
    maxRetries: parent.maxRetries,
    budget: { ...parent.budget },
    forEach: null,
    ...(parent.effort === undefined ? {} : { effort: parent.effort }),
  };
}

/** One line, so the collected summary keeps exactly one line per item. */
function oneLine(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/**
 * The collected summary: "1. <item>: <summary>" per item, in item order; a skipped
 * child reads "(skipped)", a failed one "(failed: <reason>)", one still open
 * "(not finished)". Multi-line summaries are joined into one line.
 */
export function collectedSummary(items: readonly string[], children: readonly (StepState | undefined)[]): string {
  return items
    .map((item, i) => {
      const child = children[i];
      let result: string;
      if (child?.status === "done") result = oneLine(child.outputSummary ?? "");
      else if (child?.status === "skipped") result = "(skipped)";
      else if (child?.status === "failed") result = `(failed: ${oneLine(child.failureReason ?? "no reason")})`;
      else result = "(not finished)";
      return `${i + 1}. ${oneLine(item)}: ${result}`;
    })
    .join("\n");
}

/** Every child's files, in item order, each file once. */
export function collectedFiles(children: readonly (StepState | undefined)[]): string[] {
  const files = new Set<string>();
  for (const child of children) for (const file of child?.outputFiles ?? []) files.add(file);
  return [...files];
}

/**
 * The children have all ended and none awaits a decision (a child refused for its
 * budget asks the commander itself; the parent waits for that answer).
 */
export function childrenSettled(children: readonly (StepState | undefined)[]): boolean {
  return children.every((child) => child !== undefined && isTerminalStep(child.status) && !child.decisionPending);
}

/**
 * How many children of each for_each step hold one of its slots: in progress, or
 * blocked on a form (which keeps its slot while it waits, as any blocked step does).
 */
export function liveChildCounts(steps: readonly StepState[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const step of steps) {
    if (step.parentIndex === null || (step.status !== "in_progress" && step.status !== "blocked")) continue;
    counts.set(step.parentIndex, (counts.get(step.parentIndex) ?? 0) + 1);
  }
  return counts;
}
