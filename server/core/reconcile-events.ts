/**
 * One handler per event kind. The map type makes adding a PlanEvent kind a
 * compile error until it is handled here. A handler edits the working copy and
 * says whether the event applied; ignored events leave the plan untouched.
 */
import { addUsage } from "./budget.ts";
import { containsFenceMarker } from "./fence.ts";
import { addLoserUsage, fallBackToHedge, finishHedgeRun, loseHedgeRun, startHedge, stepHedgedOn } from "./hedge.ts";
import { findStep, stepStateFromSpec } from "./plan-state.ts";
import { abortPlan, cancelPlan, decidedSkipReason, handleFailure, note, releaseRuns, skipStep, type Working } from "./reconcile-context.ts";
import { collectorPast, collectorRefusal, reopenStep } from "./reconcile-reopen.ts";
import { retryStep } from "./reconcile-for-each.ts";
import { stepsSharingRun } from "./single-flight.ts";
import { isTerminalPlan } from "./status.ts";
import {
  USER_ASSIGNEE,
  type CommanderDecision,
  type PlanEvent,
  type PlanEventType,
  type RunOutcome,
  type StepSpec,
  type StepState,
} from "./types.ts";

export type HandlerOutcome = "applied" | "ignored";

type Handlers = { [K in PlanEventType]: (working: Working, event: Extract<PlanEvent, { type: K }>) => HandlerOutcome };

/** The reason a step fails with when a member stops it. */
function stoppedReason(by: string): string {
  return `stopped by ${by}`;
}

/** The reason recorded when a run's process died under it. */
export const RUN_LOST_REASON = "the run was lost (its process stopped)";

const statusWords = (status: StepState["status"]) => status.replace("_", " ");

function stepOrIgnore(working: Working, stepIndex: number): StepState | undefined {
  const step = findStep(working.plan, stepIndex);
  if (!step) note(working, stepIndex, `step ${stepIndex} does not exist in this plan`);
  return step;
}

/**
 * Results are only accepted from a run that some step is in progress on right now;
 * anything else is stale. Returns every step on the run, lowest index first (more
 * than one when steps share the run). `stepIndex` names the step the run was started
 * for; it need not be among them (it may have been let go as a straggler while a
 * twin still shares the run), it only picks the log line for a stale event.
 */
function liveStepsOrIgnore(working: Working, stepIndex: number, runId: string): StepState[] | undefined {
  const sharers = stepsSharingRun(working.plan.steps, runId);
  if (sharers.length > 0) return sharers;
  const step = stepOrIgnore(working, stepIndex);
  if (step)
    note(working, stepIndex, `stale event from run ${runId} (step is ${step.status}, live run ${step.liveRunId ?? "none"}); ignored`);
  return undefined;
}

function sharedNote(sharers: readonly StepState[], step: StepState): string {
  const others = sharers.filter((other) => other !== step).map((other) => other.index);
  return others.length === 0 ? "" : `, shared with step ${others.join(", ")}`;
}

/** One step's share of a run's outcome. */
function applyOutcome(working: Working, step: StepState, runId: string, outcome: RunOutcome, shared: string): void {
  switch (outcome.kind) {
    case "ok":
      step.status = "done";
      step.outputSummary = outcome.summary;
      step.outputFiles = [...outcome.files];
      // taint follows the data: a run that was given outside content produces outside content,
      // whatever the runtime reported
      step.outputUntrusted = (outcome.untrusted ?? false) || containsFenceMarker(step.renderedInput ?? step.input);
      step.failureReason = null;
      step.retryAt = null;
      step.liveRunId = null;
      step.endedAt = working.now;
      note(working, step.index, `done (run ${runId}${shared})`);
      return;
    case "blocked":
      // liveRunId stays: it names the session that a form answer resumes
      step.status = "blocked";
      note(working, step.index, `blocked: waiting for a form answer (run ${runId}${shared})`);
      return;
    case "failed":
      handleFailure(working, step, outcome);
      return;
    default:
      throw new Error(`step ${step.index}: unknown run outcome ${JSON.stringify(outcome satisfies never)}`);
  }
}

export const handlers: Handlers = {
  "plan-created": () => "applied",
  tick: () => "applied",

  "run-started": (working, event) => {
    if (!liveStepsOrIgnore(working, event.stepIndex, event.runId)) return "ignored";
    note(working, event.stepIndex, `run ${event.runId} started`);
    return "applied";
  },

  "run-finished": (working, event) => {
    const hedged = stepHedgedOn(working.plan.steps, event.runId);
    if (hedged) return finishHedgeRun(working, hedged, { runId: event.runId, outcome: event.outcome, applyOutcome });
    const sharers = liveStepsOrIgnore(working, event.stepIndex, event.runId);
    if (!sharers) return "ignored";
    working.finishedRun = event.runId;
    // once, on the lowest-index step: the run was paid for once, however many steps it served
    const first = sharers[0];
    first.usage = addUsage(first.usage, event.outcome.usage);
    const { outcome } = event;
    for (const step of sharers) {
      // an earlier sharer's abort_plan ended the plan and already skipped the rest
      if (isTerminalPlan(working.plan.status)) break;
      // a failure while the step's hedge twin still runs is not the step's failure
      if (outcome.kind === "failed" && fallBackToHedge(working, step, event.runId, outcome.reason)) continue;
      applyOutcome(working, step, event.runId, outcome, sharedNote(sharers, step));
    }
    return "applied";
  },

  "run-lost": (working, event) => {
    const hedged = stepHedgedOn(working.plan.steps, event.runId);
    if (hedged) return loseHedgeRun(working, hedged, event.runId);
    const sharers = liveStepsOrIgnore(working, event.stepIndex, event.runId);
    if (!sharers) return "ignored";
    working.finishedRun = event.runId;
    for (const step of sharers) {
      if (isTerminalPlan(working.plan.status)) break;
      if (fallBackToHedge(working, step, event.runId, RUN_LOST_REASON)) continue;
      handleFailure(working, step, { transient: true, reason: RUN_LOST_REASON });
    }
    return "applied";
  },

  hedge: (working, event) => startHedge(working, event),

  "run-usage": (working, event) => addLoserUsage(working, event),

  "form-answered": (working, event) => {
    const step = stepOrIgnore(working, event.stepIndex);
    if (!step) return "ignored";
    if (step.status !== "blocked") {
      note(working, step.index, `form answer for a step that is ${step.status}; ignored`);
      return "ignored";
    }
    if (step.assignee === USER_ASSIGNEE) {
      step.status = "done";
      step.outputSummary = event.summary;
      step.outputFiles = [];
      step.outputUntrusted = false;
      step.failureReason = null;
      step.liveRunId = null;
      step.endedAt = working.now;
      note(working, step.index, "done: the form was answered");
      return "applied";
    }
    // resuming takes no new parallel slot: the blocked step kept its share while it waited,
    // because nothing is dispatched while a plan is paused
    const previousRunId = step.liveRunId;
    const runId = working.input.newRunId();
    // steps that shared the blocked run wait on the same form: they continue on the resumed run
    const twins =
      previousRunId === null ? [] : working.plan.steps.filter((other) => other.status === "blocked" && other.liveRunId === previousRunId);
    for (const resumed of [step, ...twins.filter((other) => other !== step)]) {
      resumed.status = "in_progress";
      resumed.liveRunId = runId;
      if (resumed !== step) note(working, resumed.index, `resumed with step ${step.index}'s form answer on shared run ${runId}`);
    }
    working.startedRuns.add(runId);
    working.commands.push({
      type: "resume",
      stepIndex: step.index,
      answer: event.forAgent?.answer ?? event.summary,
      attempt: step.attempts,
      runId,
      previousRunId,
      ...(event.forAgent ? { secrets: event.forAgent.secrets } : {}),
    });
    note(working, step.index, `resumed with the form answer as run ${runId}`);
    return "applied";
  },

  "commander-decision": (working, event) => {
    const step = stepOrIgnore(working, event.stepIndex);
    if (!step) return "ignored";
    if (!step.decisionPending) {
      note(working, step.index, `commander decision "${event.decision.kind}" but no decision is pending; ignored`);
      return "ignored";
    }
    const outcome = applyDecision(working, step, event.decision);
    // counted so that a commander answering "retry" to an exhausted budget cannot loop forever
    if (outcome === "applied") step.decisionCount += 1;
    return outcome;
  },

  "retry-step": (working, event) => {
    const step = stepOrIgnore(working, event.stepIndex);
    if (!step) return "ignored";
    if (step.status !== "failed") {
      note(working, step.index, `step ${step.index} is ${statusWords(step.status)}; only a failed step can be retried`);
      return "ignored";
    }
    // an item is retried while its for_each step still collects; after that, only with it
    const parent = step.parentIndex === null ? undefined : findStep(working.plan, step.parentIndex);
    if (parent && parent.status !== "in_progress") {
      note(
        working,
        step.index,
        `step ${step.index} is an item of for_each step ${parent.index}, which is ${statusWords(parent.status)}; retry step ${parent.index}`,
      );
      return "ignored";
    }
    const collector = collectorPast(working.plan, step);
    if (collector) {
      note(working, step.index, collectorRefusal(step, collector));
      return "ignored";
    }
    retryStep(working, step);
    note(working, step.index, "retry requested by a member");
    return "applied";
  },

  "skip-step": (working, event) => {
    const step = stepOrIgnore(working, event.stepIndex);
    if (!step) return "ignored";
    if (step.status !== "failed" && step.status !== "pending") {
      note(working, step.index, `step ${step.index} is ${statusWords(step.status)}; only a failed or pending step can be skipped`);
      return "ignored";
    }
    skipStep(
      working,
      step,
      decidedSkipReason({ by: "member", reason: event.reason, failure: step.status === "failed" ? step.failureReason : null }),
    );
    note(working, step.index, `skipped by a member: ${event.reason}`);
    return "applied";
  },

  cancel: (working, event) => {
    cancelPlan(working, event.reason);
    return "applied";
  },

  "stop-step": (working, event) => {
    const step = stepOrIgnore(working, event.stepIndex);
    if (!step) return "ignored";
    if (step.status !== "in_progress" || step.liveRunId === null) {
      // a collecting for_each step has no run of its own: its items are stopped one by one
      const what = step.status === "in_progress" ? "collecting its items" : statusWords(step.status);
      note(working, step.index, `step ${step.index} is ${what}; only a step with a live run can be stopped`);
      return "ignored";
    }
    const runId = step.liveRunId;
    // off the run first, so it is cancelled before anything the policy decides (an abort's
    // plan-ended comes last); a twin still on it keeps it going (single-flight)
    step.liveRunId = null;
    releaseRuns(working, [runId]);
    // not transient: a person asked for it to stop, so no retry brings it back on its own
    handleFailure(working, step, { transient: false, reason: stoppedReason(event.by) });
    return "applied";
  },

  reopen: (working, event) => reopenStep(working, event.stepIndex),
};

function applyDecision(working: Working, step: StepState, decision: CommanderDecision): HandlerOutcome {
  switch (decision.kind) {
    case "retry":
      retryStep(working, step, { input: decision.input, assignee: decision.assignee });
      note(
        working,
        step.index,
        `the commander retries the step${decision.assignee ? ` with ${decision.assignee}` : ""}${decision.input !== undefined ? " with new input" : ""}`,
      );
      return "applied";
    case "skip":
      skipStep(working, step, decidedSkipReason({ by: "commander", reason: decision.reason, failure: step.failureReason }));
      note(working, step.index, `the commander skips the step${decision.reason ? `: ${decision.reason}` : ""}`);
      return "applied";
    case "abort": {
      const reason = decision.reason ? `plan aborted by the commander: ${decision.reason}` : `plan aborted: step ${step.index} failed`;
      abortPlan(working, step, null, reason);
      return "applied";
    }
    case "append": {
      const problem = appendProblem(working.plan.steps, decision.steps);
      if (problem) {
        note(working, step.index, `the commander's appended steps were rejected (${problem}); still waiting for a decision`);
        return "ignored";
      }
      for (const spec of decision.steps) working.plan.steps.push(stepStateFromSpec(spec));
      // the failed step is replaced by the new work: skipping it lets its downstream proceed
      skipStep(working, step, step.failureReason);
      note(working, step.index, `the commander appends steps ${decision.steps.map((spec) => spec.index).join(", ")}; this step is skipped`);
      return "applied";
    }
    default:
      throw new Error(`step ${step.index}: unknown commander decision ${JSON.stringify(decision satisfies never)}`);
  }
}

/**
 * A last structural guard; validateAppendedSteps is the real check, run before the
 * decision is recorded. Appending anything that could deadlock the plan is refused.
 */
function appendProblem(existing: readonly StepState[], specs: readonly StepSpec[]): string | null {
  if (specs.length === 0) return "no steps";
  const known = new Set(existing.map((step) => step.index));
  let expected = Math.max(0, ...known) + 1;
  for (const spec of specs) {
    if (spec.index !== expected) return `expected index ${expected}, got ${spec.index}`;
    const bad = spec.waitFor.find((upstream) => upstream >= spec.index || !known.has(upstream));
    if (bad !== undefined) return `step ${spec.index} waits for step ${bad}`;
    const strayOptional = spec.optionalWaitFor.find((upstream) => !spec.waitFor.includes(upstream));
    if (strayOptional !== undefined) return `step ${spec.index} marks step ${strayOptional} optional without waiting for it`;
    if (spec.quorum !== null && !(Number.isInteger(spec.quorum) && spec.quorum >= 1 && spec.quorum <= spec.waitFor.length)) {
      return `step ${spec.index} has quorum ${spec.quorum} for ${spec.waitFor.length} dependencies`;
    }
    // a for_each step whose list might not exist when it becomes ready would expand too early
    if (spec.forEach !== null && (!spec.waitFor.includes(spec.forEach.from) || spec.quorum !== null)) {
      return `step ${spec.index} maps over step ${spec.forEach.from}, which it does not simply wait for`;
    }
    known.add(spec.index);
    expected += 1;
  }
  return null;
}
