/**
 * Test-only: the recovery invariants, checked after every reconcile by
 * reconcile.property.test.ts. Re-stated independently of reconcile: a stopped step
 * fails for good under its own policy and nothing else changes because of the stop
 * but what that policy says; a step that fails under `continue` stays failed; and an
 * ended plan changes only through a reopen, which keeps every done step as it was.
 */
import type { Coverage } from "./property-coverage.ts";
import { isTerminalPlan } from "../status.ts";
import type { PlanEvent, PlanState, ReconcileResult, StepState } from "../types.ts";

function ensure(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

export function checkRecoveryInvariants({
  before,
  event,
  result,
  coverage,
}: {
  before: PlanState;
  event: PlanEvent;
  result: ReconcileResult;
  coverage: Coverage;
}): void {
  const after = result.plan;
  const afterByIndex = new Map(after.steps.map((step) => [step.index, step] as const));
  if (event.type === "stop-step" && result.ignored === undefined) checkStop(before, after, event, result);
  if (event.type === "stop-step" && result.ignored === undefined) coverage.stopped += 1;

  // a step that fails for good under continue stays failed (its dependants go on past it)
  for (const previous of before.steps) {
    const step = afterByIndex.get(previous.index)!;
    if (previous.status === "failed" || step.status !== "failed" || step.onFailure !== "continue" || step.decisionPending) continue;
    coverage.continuedFailure += 1;
  }
  // (a twin on the same run whose abort_plan ended the plan skips it instead, with the rest)
  for (const step of isTerminalPlan(after.status) ? [] : after.steps) {
    const previous = before.steps.find((candidate) => candidate.index === step.index);
    // before, continue turned a failure into "skipped"; now nothing skips a step with its own failure reason
    if (step.status !== "skipped" || previous === undefined || previous.status !== "in_progress") continue;
    ensure(
      !(
        event.type === "run-finished" &&
        event.outcome.kind === "failed" &&
        previous.liveRunId === event.runId &&
        step.onFailure === "continue"
      ),
      () => `step ${step.index} failed under continue but reads skipped`,
    );
  }

  if (isTerminalPlan(before.status)) {
    if (event.type !== "reopen" || result.ignored !== undefined) {
      ensure(result.plan === before && result.commands.length === 0, () => `ended plan changed by ${event.type}`);
      return;
    }
    coverage.reopened += 1;
    const target = afterByIndex.get(event.stepIndex)!;
    const previous = before.steps.find((step) => step.index === event.stepIndex)!;
    // it went back to work (a budget refusal or a quorum may end it again at once, but not unchanged)
    ensure(JSON.stringify(target) !== JSON.stringify(previous), () => `reopened step ${event.stepIndex} did not change`);
    const ended = result.commands.some((command) => command.type === "plan-ended");
    ensure(!isTerminalPlan(after.status) || ended, () => `reopened plan is ${after.status} without ending again`);
    for (const previous of before.steps) {
      const step = afterByIndex.get(previous.index)!;
      if (previous.status === "done" && previous.forEach === null)
        ensure(step.status === "done" && step.outputSummary === previous.outputSummary, () => `reopen changed done step ${step.index}`);
    }
  }
}

/** The stopped step failed for good with the stop's reason, no retry pending, and its run is no step's but a twin's. */
function checkStop(before: PlanState, after: PlanState, event: Extract<PlanEvent, { type: "stop-step" }>, result: ReconcileResult): void {
  const previous = before.steps.find((step) => step.index === event.stepIndex)!;
  const step: StepState = after.steps.find((candidate) => candidate.index === event.stepIndex)!;
  ensure(step.status === "failed" && step.failureReason === `stopped by ${event.by}`, () => `stopped step ${step.index} is ${step.status}`);
  ensure(step.retryAt === null && step.liveRunId === null, () => `stopped step ${step.index} is set to retry`);
  // ask_commander asks (unless the plan ended); the others never await a decision
  ensure(
    step.decisionPending === (previous.onFailure === "ask_commander" && previous.parentIndex === null && !isTerminalPlan(after.status)),
    () => `stopped step ${step.index}: decision pending ${step.decisionPending} under ${previous.onFailure}`,
  );
  if (previous.onFailure === "abort_plan")
    ensure(after.status === "failed", () => `stopped abort_plan step ${step.index} left the plan ${after.status}`);
  const twins = after.steps.filter((other) => other.status === "in_progress" && other.liveRunId === previous.liveRunId);
  const cancelled = result.commands.some((command) => command.type === "cancel-run" && command.runId === previous.liveRunId);
  ensure(
    cancelled === (twins.length === 0),
    () => `stopped step ${step.index}: run cancelled ${cancelled} with ${twins.length} twins on it`,
  );
}
