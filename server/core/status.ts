/**
 * Small predicates over the closed status unions, so every module asks the same
 * question the same way instead of repeating lists of statuses.
 */
import type { PlanStatus, RunStatus, StepState, StepStatus } from "./types.ts";

/** A step that will not change again unless someone intervenes (retry, skip). */
export function isTerminalStep(status: StepStatus): boolean {
  return status === "done" || status === "failed" || status === "skipped";
}

/** Downstream steps may proceed past this one: it produced output, or was skipped on purpose. */
export function isSuccessfulEnough(status: StepStatus): boolean {
  return status === "done" || status === "skipped";
}

/**
 * Failed for good under on_failure `continue`: the step looks failed (it is), but its
 * dependants proceed past it exactly as past a skipped step, without its output. A
 * failure awaiting a decision (a budget refusal asks whatever the policy) is not one yet.
 */
export function isContinuedFailure(step: Pick<StepState, "status" | "onFailure" | "decisionPending">): boolean {
  return step.status === "failed" && step.onFailure === "continue" && !step.decisionPending;
}

/** A run is executing this step right now. */
export function isLiveStep(status: StepStatus): boolean {
  return status === "in_progress";
}

/**
 * What a step is doing, read the way a person thinks of it: a pending step waiting out a
 * retry backoff is "retrying", a blocked one (an open form) is "waiting" for a person.
 */
export type StepActivity = "queued" | "running" | "waiting" | "retrying" | "done" | "failed" | "skipped";

export function stepActivity(step: { status: StepStatus; retryAt: Date | string | null; transientFailures: number }): StepActivity {
  switch (step.status) {
    case "pending":
      return step.retryAt !== null && step.transientFailures > 0 ? "retrying" : "queued";
    case "in_progress":
      return "running";
    case "blocked":
      return "waiting";
    case "done":
    case "failed":
    case "skipped":
      return step.status;
  }
}

/** The plan has ended; events for it are ignored. */
export function isTerminalPlan(status: PlanStatus): boolean {
  return status === "completed" || status === "partial" || status === "failed" || status === "cancelled";
}

/**
 * Runs in these statuses never change again, so their usage is final. A blocked run
 * is not among them: its form's answer or its plan's end still changes it.
 */
export const ENDED_RUN_STATUSES = ["succeeded", "failed", "cancelled", "lost"] as const satisfies readonly RunStatus[];
