/**
 * reconcile: state in, commands out. Runs once per event under the conversation
 * lock; the executor writes back the returned plan and carries out the commands
 * in the same transaction, so "record what finished" and "decide what runs next"
 * are one atomic unit.
 *
 * Decisions worth knowing (the tests pin each one):
 * - A run's result applies to every step that is in progress on that run (several
 *   when steps share one run, see single-flight), each with its own on_failure and
 *   retry budget; results from a run no step is live on are stale and ignored
 *   outright (no state change, no commands).
 * - Single-flight: a ready agent or commander step whose assignee and normalized
 *   rendered input match a running step joins that step's run: no dispatch, no
 *   slot. A run is cancelled only when no live step shares it any more.
 * - Usage a run reports is added once, to the lowest-index step on the run, so the
 *   plan total never counts a shared run twice.
 * - Budgets: a ready step is never started (dispatched or joined) once the plan's
 *   or its own usage reached a limit; it fails and the commander is asked, whatever
 *   its on_failure. After BUDGET_DECISION_LIMIT decisions a further refusal aborts.
 * - A blocked step keeps `liveRunId` = the run that blocked, so the form answer can
 *   resume that session; `resume` starts a new run id and names the old one. Steps
 *   that shared the blocked run resume with it, on the same new run.
 * - While any step is blocked the plan is paused: live runs go on, nothing new is
 *   dispatched. Resuming takes no new slot (see form-answered).
 * - The commander's `append` skips the failed step it replaces, so the failed
 *   step's downstream proceeds alongside the appended steps.
 * - A pending step that can no longer meet its requirement (a required upstream
 *   step failed for good, or too few are left for its quorum) is skipped
 *   ("upstream step N failed") so the plan can end instead of hanging.
 * - Once a quorum step is ready, dependencies it no longer needs that nobody else
 *   waits for are skipped ("not needed: quorum of step M reached") and their runs
 *   cancelled, so a straggler does not hold the plan.
 * - A ready step whose agent is unavailable (input.unavailable: disabled or deleted)
 *   fails with the reason given, under its on_failure, instead of being dispatched.
 * - A member's stop-step fails that step alone for good ("stopped by <name>", never
 *   retried on its own) under its on_failure; its run is cancelled unless a twin shares it.
 * - reopen is the one event an ended plan accepts: a failed or skipped step, and the
 *   steps skipped because of it, go back to pending and the plan runs again.
 * - A ready for_each step is expanded into child steps instead of dispatched, and
 *   completes when they have all ended (see reconcile-for-each.ts). Children are
 *   ordinary steps for dispatch, single-flight, budgets and cascades, plus a bound
 *   of their own: at most the step's for_each max_parallel in progress at once.
 * - A straggler may race a twin on its agent's alternate model (`hedge`, see
 *   hedge.ts): first to finish wins, the loser is cancelled, a twin's failure is not
 *   the step's.
 */
import { note, startWorking, type Working } from "./reconcile-context.ts";
import { releaseStragglers, skipDoomedSteps } from "./reconcile-dependencies.ts";
import { dispatchReady, refuseOverBudget, refuseUnavailable } from "./reconcile-dispatch.ts";
import { handlers } from "./reconcile-events.ts";
import { releaseOrphanedHedges } from "./hedge.ts";
import { closeSkippedExpansions, collectExpansions, expandReady } from "./reconcile-for-each.ts";
import { planOutcome } from "./outcome.ts";
import { isTerminalPlan } from "./status.ts";
import type { PlanEvent, PlanState, ReconcileInput, ReconcileResult, StepState } from "./types.ts";

/**
 * Apply one event to a plan and decide what happens next. Pure: the input is
 * never mutated (a new plan is returned), time, randomness and run ids come from
 * the input. Ignored events (terminal plan, stale run, unknown step, a control
 * that does not apply) return the input plan unchanged with no commands, and say
 * why in `ignored` (a handler that ignores an event notes why as its last line).
 */
export function reconcile(input: ReconcileInput): ReconcileResult {
  // reopen is the one event an ended plan accepts (its handler refuses a plan still open)
  if (isTerminalPlan(input.plan.status) && input.event.type !== "reopen") {
    return ignored(input, `the plan is ${input.plan.status}; ${input.event.type} no longer applies`);
  }
  const working = startWorking(input);
  const outcome = dispatchEvent(working, input.event);
  if (outcome === "ignored") {
    const why = working.log.at(-1)?.message ?? `${input.event.type} ignored`;
    return { plan: input.plan, commands: [], changedSteps: [], log: working.log, ignored: why };
  }
  if (!isTerminalPlan(working.plan.status)) settle(working);
  releaseOrphanedHedges(working, input.plan);
  return {
    plan: working.plan,
    commands: working.commands,
    changedSteps: changedSteps(input.plan, working.plan),
    log: working.log,
  };
}

function ignored(input: ReconcileInput, message: string): ReconcileResult {
  return { plan: input.plan, commands: [], changedSteps: [], log: [{ stepIndex: null, message }], ignored: message };
}

function dispatchEvent(working: Working, event: PlanEvent) {
  // the cast is safe: the handler is looked up by the event's own type
  const handler = handlers[event.type] as (working: Working, event: PlanEvent) => "applied" | "ignored";
  return handler(working, event);
}

function isPaused(working: Working): boolean {
  return working.plan.steps.some((step) => step.status === "blocked");
}

/** The common tail after every applied event on a plan that has not ended. */
function settle(working: Working): void {
  const wasStatus = working.plan.status;
  // bookkeeping passes, repeated while for_each expansion changes the picture: an
  // empty list completes its step at once, which can make further steps ready (or a
  // for_each downstream expandable) in this same reconcile
  for (;;) {
    collectExpansions(working);
    if (isTerminalPlan(working.plan.status)) return;
    closeSkippedExpansions(working);
    skipDoomedSteps(working);
    // stragglers are let go even while paused: that frees their slots for later
    releaseStragglers(working);
    // a released straggler may be a for_each step whose children must go with it
    closeSkippedExpansions(working);
    if (isPaused(working)) break;
    // before budget refusals: an expansion can abort the plan, and an abort wins over asking
    const expanded = expandReady(working);
    if (isTerminalPlan(working.plan.status)) return;
    if (!expanded) break;
  }
  if (!isPaused(working)) {
    // budget refusals before dispatch: an abort there must not cancel a run dispatched just before
    refuseOverBudget(working);
    if (isTerminalPlan(working.plan.status)) return;
    refuseUnavailable(working);
    if (isTerminalPlan(working.plan.status)) return;
    dispatchReady(working);
  }
  const blocked = working.plan.steps.find((step) => step.status === "blocked");
  working.plan.status = blocked ? "paused" : "running";
  if (wasStatus !== working.plan.status) {
    note(working, null, blocked ? `plan paused: step ${blocked.index} waits for a form answer` : "plan running");
  }
  if (endIfSettled(working)) return;
  scheduleNextRetry(working);
}

/** The plan ends when nothing is open and no decision is awaited. Returns whether it ended. */
function endIfSettled(working: Working): boolean {
  const steps = working.plan.steps;
  const open = steps.some(
    (step) => step.status === "pending" || step.status === "in_progress" || step.status === "blocked" || step.decisionPending,
  );
  if (open) return false;
  // completed, partial or failed by what the steps delivered (an abort ended the plan earlier)
  const status = planOutcome(steps);
  working.plan.status = status;
  working.commands.push({ type: "plan-ended", status });
  note(working, null, `plan ${status}`);
  return true;
}

/** Make sure a tick arrives for the earliest retry still in backoff. */
function scheduleNextRetry(working: Working): void {
  let earliest: number | null = null;
  for (const step of working.plan.steps) {
    if (step.status !== "pending" || step.retryAt === null || step.retryAt <= working.now) continue;
    if (earliest === null || step.retryAt < earliest) earliest = step.retryAt;
  }
  if (earliest === null) return;
  const at = earliest;
  if (!working.commands.some((command) => command.type === "schedule-tick" && command.at === at)) {
    working.commands.push({ type: "schedule-tick", at });
  }
}

/**
 * Equal as stored: primitives by value, arrays element-wise, records (usage, budget,
 * forEach, expansion) field-wise, recursively (an expansion holds arrays).
 */
// Runs on every step of the plan after every event, so it allocates nothing.
function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let i = 0; i < left.length; i++) if (!sameValue(left[i], right[i])) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  let count = 0;
  for (const key in left) {
    count++;
    if (!sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key])) return false;
  }
  for (const _key in right) count--;
  return count === 0;
}

function sameStep(a: StepState, b: StepState): boolean {
  return sameValue(a, b);
}

function changedSteps(before: PlanState, after: PlanState): number[] {
  const previous = new Map(before.steps.map((step) => [step.index, step] as const));
  return after.steps
    .filter((step) => {
      const old = previous.get(step.index);
      return old === undefined || !sameStep(old, step);
    })
    .map((step) => step.index);
}
