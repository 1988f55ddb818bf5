/**
 * What a plan that ended amounts to (DESIGN rule 7): `completed` when every step
 * did its work, `partial` when something failed or was skipped but the plan still
 * delivered a result, `failed` when it delivered none (or was aborted, see
 * reconcile-context.ts). Pure, so the status, the closing message and the history
 * all read the same facts.
 */
import type { PlanState, StepState, StepStatus } from "./types.ts";

export type PlanOutcome = "completed" | "partial" | "failed";

/** The reason a quorum step gives the stragglers it no longer needs. */
export function notNeededReason(quorumStepIndex: number): string {
  return `not needed: quorum of step ${quorumStepIndex} reached`;
}

/**
 * Skipped because a quorum was reached without it: the plan's author asked for
 * "any k of these", so the step is not missing from the result.
 */
export function isReleasedByQuorum(step: Pick<StepState, "status" | "failureReason">): boolean {
  return step.status === "skipped" && (step.failureReason?.startsWith("not needed: quorum of step ") ?? false);
}

/** The step did its share of the plan. */
function didItsPart(step: Pick<StepState, "status" | "failureReason">): boolean {
  return step.status === "done" || isReleasedByQuorum(step);
}

/**
 * The steps whose output is the plan's result: top-level steps (not for_each items)
 * that no other step waits for. A plan always has at least one (wait_for only names
 * earlier steps, so the last step is never waited for).
 */
export function resultSteps<T extends Pick<StepState, "index" | "waitFor" | "parentIndex">>(steps: readonly T[]): T[] {
  const waitedFor = new Set<number>();
  for (const step of steps) for (const upstream of step.waitFor) waitedFor.add(upstream);
  return steps.filter((step) => step.parentIndex === null && !waitedFor.has(step.index));
}

/**
 * The outcome of a plan whose steps have all ended without an abort: completed if
 * every step is done (or was released by a quorum), partial if at least one result
 * step is done, failed otherwise.
 */
export function planOutcome(steps: readonly StepState[]): PlanOutcome {
  if (steps.every(didItsPart)) return "completed";
  return resultSteps(steps).some((step) => step.status === "done") ? "partial" : "failed";
}

/** A step that did not do its part, and why (as recorded by the executor). */
export interface MissingStep {
  index: number;
  title: string;
  assignee: string;
  status: StepStatus;
  reason: string | null;
}

/** What the commander's closing message reports. */
export interface OutcomeReport {
  status: PlanState["status"];
  /** every step, for_each items included */
  total: number;
  done: number;
  /** result steps that are done, in index order: where the answer is */
  delivered: { index: number; title: string; summary: string | null }[];
  /** steps that did not do their part, in index order */
  missing: MissingStep[];
}

/** The facts behind a plan's closing message. */
export function outcomeReport(plan: Pick<PlanState, "status" | "steps">): OutcomeReport {
  return {
    status: plan.status,
    total: plan.steps.length,
    done: plan.steps.filter(didItsPart).length,
    delivered: resultSteps(plan.steps)
      .filter((step) => step.status === "done")
      .map((step) => ({ index: step.index, title: step.title, summary: step.outputSummary })),
    missing: [...plan.steps]
      .sort((a, b) => a.index - b.index)
      .filter((step) => !didItsPart(step))
      .map((step) => ({ index: step.index, title: step.title, assignee: step.assignee, status: step.status, reason: step.failureReason })),
  };
}

/**
 * Done after a retry that someone decided (the commander or a member) following a
 * failure for good — not merely after quiet transient retries, which every dispatch
 * beyond the first would otherwise be. `transientFailures` restarts at a decided
 * retry while `attempts` does not, so more dispatches than transient failures
 * account for means a decided retry happened.
 */
export function recoveredAfterRetry(step: Pick<StepState, "status" | "attempts" | "transientFailures">): boolean {
  return step.status === "done" && step.attempts - 1 > step.transientFailures;
}
