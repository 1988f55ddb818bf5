/**
 * The mutable working copy that one reconcile edits, and the transitions that
 * several events share (failure policy, abort cascade, cancel). Internal to
 * reconcile: the input plan is cloned first, so nothing here touches the caller's
 * state.
 */
import { plural } from "./plural.ts";
import { decideDurable, describeWait } from "./retry-policy.ts";
import { stepsSharingRun } from "./single-flight.ts";
import { isTerminalStep } from "./status.ts";
import type { CancelReason, EscalationCause, PlanCommand, PlanState, ReconcileInput, ReconcileResult, StepState } from "./types.ts";

export interface Working {
  readonly input: ReconcileInput;
  readonly now: number;
  plan: PlanState;
  commands: PlanCommand[];
  log: ReconcileResult["log"];
  /** the run this event reports as ended: it is over, so it is never cancelled */
  finishedRun: string | null;
  /**
   * runs this reconcile decided to start (dispatch, resume): if the same reconcile
   * ends them again, the start is withdrawn instead of cancelling a run the executor
   * has not even created (it cancels only runs of earlier transactions)
   */
  startedRuns: Set<string>;
}

/**
 * A step's working copy. Shallow on purpose: reconcile replaces nested values (arrays,
 * usage, expansion) instead of editing them in place, and the property test runs on a
 * deep-frozen input, so an in-place edit anywhere would fail it.
 */
export function cloneStep(step: StepState): StepState {
  return { ...step };
}

export function startWorking(input: ReconcileInput): Working {
  const plan = { ...input.plan, budget: { ...input.plan.budget }, steps: input.plan.steps.map(cloneStep) };
  return { input, now: input.now, plan, commands: [], log: [], finishedRun: null, startedRuns: new Set() };
}

/**
 * Stop runs that no step needs any more. Call after the steps that used them left
 * `in_progress`: a run another live step still shares (single-flight) goes on, the
 * run this event reports is already over, each run is cancelled once, and a run
 * started in this very reconcile is withdrawn (its start command dropped) instead.
 */
export function releaseRuns(working: Working, runIds: Iterable<string>, reason?: CancelReason): void {
  for (const runId of new Set(runIds)) {
    if (runId === working.finishedRun) continue;
    const sharers = stepsSharingRun(working.plan.steps, runId);
    if (sharers.length > 0) {
      if (working.startedRuns.has(runId)) handOverStart(working, runId, sharers[0]);
      continue;
    }
    if (working.startedRuns.has(runId)) {
      working.startedRuns.delete(runId);
      working.commands = working.commands.filter(
        (command) => !((command.type === "dispatch" || command.type === "resume" || command.type === "hedge") && command.runId === runId),
      );
      continue;
    }
    if (working.commands.some((command) => command.type === "cancel-run" && command.runId === runId)) continue;
    working.commands.push(reason ? { type: "cancel-run", runId, reason } : { type: "cancel-run", runId });
  }
}

export function note(working: Working, stepIndex: number | null, message: string): void {
  working.log.push({ stepIndex, message });
}

/** Mark a step finished without output. */
export function skipStep(working: Working, step: StepState, reason: string | null): void {
  step.status = "skipped";
  step.failureReason = reason;
  step.decisionPending = false;
  step.retryAt = null;
  step.liveRunId = null;
  step.endedAt = working.now;
}

/**
 * The reason a decided skip records: who decided and why, and the failure it followed,
 * so the closing message can say both. The prefix keeps free text (a model's or a
 * member's) from passing for a reason reconcile writes itself (a quorum release).
 */
export function decidedSkipReason(input: {
  by: "commander" | "member";
  reason: string | null | undefined;
  failure: string | null;
}): string | null {
  const said = input.reason?.trim() ? input.reason.trim() : null;
  let decided: string | null;
  if (input.by === "commander") decided = said ? `the commander skipped it: ${said}` : "the commander skipped it";
  else decided = said === null ? "skipped by a member" : said.startsWith("skipped by ") ? said : `skipped by a member: ${said}`;
  return input.failure && input.failure !== said ? `${decided} (it had failed: ${input.failure})` : decided;
}

/** Back to pending with a fresh retry budget (commander retry, member retry). */
export function resetForRetry(step: StepState): void {
  step.status = "pending";
  step.decisionPending = false;
  step.transientFailures = 0;
  step.failureReason = null;
  step.retryAt = null;
  step.liveRunId = null;
  step.endedAt = null;
}

/** How a run of a step failed; `retryAfterMs` is the provider's Retry-After, when it sent one. */
export interface StepFailure {
  transient: boolean;
  reason: string;
  retryAfterMs?: number;
  /** a stronger model could fix it, and the agent has one: escalate once (core/run-model.ts) */
  escalation?: EscalationCause;
}

/**
 * A run of `step` failed. Transient failures with budget left go back to pending
 * with backoff, or with the provider's longer Retry-After (core/retry-policy.ts);
 * anything else applies the step's on_failure policy (for a for_each child,
 * ask_commander is left to its parent, see reconcile-for-each.ts).
 */
export function handleFailure(working: Working, step: StepState, failure: StepFailure): void {
  const { transient, reason } = failure;
  step.liveRunId = null;
  if (failure.escalation !== undefined && step.escalatedAttempt === null) {
    // the next attempt, at once, on the escalation model; it spends no retry (once per step)
    step.escalatedAttempt = step.attempts + 1;
    step.escalationCause = failure.escalation;
    step.status = "pending";
    step.retryAt = null;
    step.failureReason = reason;
    note(working, step.index, `failed (${reason}); attempt ${step.escalatedAttempt} escalates to the agent's escalation model`);
    return;
  }
  const verdict = transient
    ? decideDurable({
        failuresBefore: step.transientFailures,
        maxRetries: step.maxRetries,
        retryAfterMs: failure.retryAfterMs ?? null,
        random: working.input.random,
      })
    : null;
  if (verdict?.kind === "retry") {
    step.transientFailures += 1;
    step.status = "pending";
    step.retryAt = working.now + verdict.delayMs;
    step.failureReason = reason;
    working.commands.push({ type: "schedule-tick", at: step.retryAt });
    const wait = verdict.waitsForProvider ? `waiting ${describeWait(verdict.delayMs)} as the provider asked` : `in ${verdict.delayMs} ms`;
    note(working, step.index, `transient failure (${reason}); retry ${step.transientFailures} of ${step.maxRetries} ${wait}`);
    return;
  }
  const finalReason = verdict === null ? reason : `${reason} (${givenUp(step, verdict.why, failure.retryAfterMs, working.now)})`;
  switch (step.onFailure) {
    case "abort_plan":
      note(working, step.index, `failed (${finalReason}); on_failure abort_plan stops the plan`);
      abortPlan(working, step, finalReason, `plan aborted: step ${step.index} failed`);
      return;
    case "continue":
      // it stays failed, so it looks failed; dependants proceed past it (isContinuedFailure)
      failStep(working, step, finalReason);
      note(working, step.index, `failed (${finalReason}); on_failure continue: downstream proceeds without its output`);
      return;
    case "ask_commander":
      if (step.parentIndex !== null) {
        // one decision for the whole list: the for_each step asks once its children have all ended
        failStep(working, step, finalReason);
        note(
          working,
          step.index,
          `failed (${finalReason}); for_each step ${step.parentIndex} asks the commander once its items have ended`,
        );
        return;
      }
      failStep(working, step, finalReason);
      step.decisionPending = true;
      working.commands.push({ type: "ask-commander", stepIndex: step.index, failureReason: finalReason });
      note(working, step.index, `failed (${finalReason}); asking the commander to decide`);
      return;
    default:
      throw new Error(`step ${step.index}: unknown on_failure policy ${String(step.onFailure satisfies never)}`);
  }
}

/** Failed for good, no decision pending (a caller that asks sets it after). */
function failStep(working: Working, step: StepState, reason: string): void {
  step.status = "failed";
  step.failureReason = reason;
  step.decisionPending = false;
  step.retryAt = null;
  step.liveRunId = null;
  step.endedAt = working.now;
}

/** Why a transient failure stuck, with the retries spent and the time they took. */
function givenUp(step: StepState, why: "no-retries-left" | "retry-after-too-long", retryAfterMs: number | undefined, now: number): string {
  const spent = step.startedAt === null ? "" : ` over ${describeWait(now - step.startedAt)}`;
  if (why === "retry-after-too-long") {
    return `the provider asked to wait ${describeWait(retryAfterMs ?? 0)}, longer than Baton waits; ${plural(step.transientFailures, "retry", "retries")}${spent}`;
  }
  return `no retries left after ${step.transientFailures}${spent}`;
}

/**
 * A run started in this reconcile goes on for its twins, but the step its start
 * command names has left it: name a step still on the run instead, so the executor
 * records the run against a step it serves.
 */
function handOverStart(working: Working, runId: string, heir: StepState): void {
  working.commands = working.commands.map((command) => {
    if ((command.type !== "dispatch" && command.type !== "resume") || command.runId !== runId || command.stepIndex === heir.index)
      return command;
    note(working, heir.index, `takes over run ${runId} from step ${command.stepIndex}`);
    return command.type === "dispatch"
      ? { ...command, stepIndex: heir.index, attempt: heir.attempts, renderedInput: heir.renderedInput ?? command.renderedInput }
      : { ...command, stepIndex: heir.index, attempt: heir.attempts };
  });
}

/**
 * Every step that has not ended is skipped, live runs are cancelled, and decisions
 * nobody will take any more are dropped. Shared by abort and cancel.
 */
function endOpenSteps(working: Working, reason: string, except: StepState | null): void {
  const runs: string[] = [];
  for (const step of working.plan.steps) {
    if (step === except) continue;
    if (step.status === "in_progress" && step.liveRunId !== null) runs.push(step.liveRunId);
    if (!isTerminalStep(step.status)) {
      skipStep(working, step, reason);
      note(working, step.index, `skipped: ${reason}`);
    } else if (step.decisionPending) {
      step.decisionPending = false;
      dropAsk(working, step);
    }
  }
  releaseRuns(working, runs);
}

/**
 * A decision nobody will take any more must not wake the commander either (e.g. a
 * shared run failed two steps at once: one asked, the other aborted the plan).
 */
export function dropAsk(working: Working, step: StepState): void {
  working.commands = working.commands.filter((command) => !(command.type === "ask-commander" && command.stepIndex === step.index));
}

/** on_failure abort_plan, or the commander's abort: `failed` fails, everything open is skipped, the plan fails. */
export function abortPlan(working: Working, failed: StepState, failureReason: string | null, cascadeReason: string): void {
  failed.status = "failed";
  if (failureReason !== null) failed.failureReason = failureReason;
  failed.decisionPending = false;
  failed.retryAt = null;
  failed.liveRunId = null;
  failed.endedAt ??= working.now;
  endOpenSteps(working, cascadeReason, failed);
  working.plan.status = "failed";
  working.commands.push({ type: "plan-ended", status: "failed" });
  note(working, null, `plan failed: ${cascadeReason}`);
}

/** A member cancelled the plan. */
export function cancelPlan(working: Working, reason: string): void {
  endOpenSteps(working, reason, null);
  working.plan.status = "cancelled";
  working.commands.push({ type: "plan-ended", status: "cancelled" });
  note(working, null, `plan cancelled: ${reason}`);
}
