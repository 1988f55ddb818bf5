/**
 * The "decide what runs next" half of reconcile: budget refusals, then ready steps
 * started within max_parallel and the agent and model pools, sharing a live run
 * when an identical subtask is already running (single-flight).
 */
import { BUDGET_DECISION_LIMIT, budgetRefusal } from "./budget.ts";
import { isAutomaticRetry } from "./failure-policy.ts";
import { liveChildCounts } from "./for-each.ts";
import { readySteps } from "./readiness.ts";
import { abortPlan, handleFailure, note, type Working } from "./reconcile-context.ts";
import { liveTwin } from "./single-flight.ts";
import { isTerminalPlan } from "./status.ts";
import { renderTemplate } from "./templates.ts";
import { USER_ASSIGNEE, type CapacityView, type PlanState, type StepState } from "./types.ts";

/** The reason other steps get when repeated budget refusals abort the plan. */
export const BUDGET_ABORT_REASON = `budget exhausted after ${BUDGET_DECISION_LIMIT} decisions`;

/** Live runs per pool, counting runs elsewhere (capacity) and in this plan. */
class Pools {
  private readonly agentLive = new Map<string, number>();
  private readonly modelLive = new Map<string, number>();

  constructor(
    private readonly capacity: CapacityView,
    liveAssignees: readonly string[],
  ) {
    for (const assignee of liveAssignees) this.add(assignee);
  }

  hasRoom(assignee: string): boolean {
    const agent = this.capacity.agents[assignee];
    if (agent && agent.live + (this.agentLive.get(assignee) ?? 0) >= agent.limit) return false;
    const modelId = this.capacity.agentModel[assignee];
    const model = modelId === undefined ? undefined : this.capacity.models[modelId];
    if (model && model.live + (this.modelLive.get(modelId) ?? 0) >= model.limit) return false;
    return true;
  }

  add(assignee: string): void {
    this.agentLive.set(assignee, (this.agentLive.get(assignee) ?? 0) + 1);
    const modelId = this.capacity.agentModel[assignee];
    if (modelId !== undefined) this.modelLive.set(modelId, (this.modelLive.get(modelId) ?? 0) + 1);
  }
}

/**
 * The assignee of each distinct live run. Slots are counted per run, not per step:
 * steps sharing one run (single-flight) occupy one slot together.
 */
function liveRunAssignees(plan: PlanState): string[] {
  const runs = new Map<string, string>();
  for (const step of plan.steps) {
    if (step.status === "in_progress" && step.liveRunId !== null) runs.set(step.liveRunId, step.assignee);
  }
  return [...runs.values()];
}

function stepsByIndex(plan: PlanState): Map<number, StepState> {
  return new Map(plan.steps.map((step) => [step.index, step] as const));
}

/**
 * Ready agent and commander steps that a budget forbids to start fail and ask the
 * commander, whatever their on_failure says: running out of budget is the
 * scheduler's call, not a model's failure. After BUDGET_DECISION_LIMIT decisions on
 * the step a further refusal aborts the plan instead of asking again. Runs before
 * any dispatch of the same reconcile, so an abort here never cancels a run that
 * this reconcile started. Forms (`user` steps) spend no tokens and are never refused.
 */
export function refuseOverBudget(working: Working): void {
  const refused: { step: StepState; detail: string }[] = [];
  for (const step of readySteps(working.plan, working.now)) {
    if (step.assignee === USER_ASSIGNEE) continue;
    const detail = budgetRefusal(working.plan, step);
    if (detail !== null) refused.push({ step, detail });
  }
  // an abort wins over asking: asking first would leave steps failed that the abort must skip
  const hopeless = refused.find(({ step }) => step.decisionCount >= BUDGET_DECISION_LIMIT);
  if (hopeless) {
    const { step, detail } = hopeless;
    note(working, step.index, `not dispatched: budget exhausted (${detail}) after ${step.decisionCount} decisions; the plan stops`);
    abortPlan(working, step, `${BUDGET_ABORT_REASON}: ${detail}`, BUDGET_ABORT_REASON);
    return;
  }
  for (const { step, detail } of refused) {
    const reason = `budget exhausted: ${detail}`;
    step.status = "failed";
    step.failureReason = reason;
    step.decisionPending = true;
    step.retryAt = null;
    step.liveRunId = null;
    step.endedAt = working.now;
    working.commands.push({ type: "ask-commander", stepIndex: step.index, failureReason: reason });
    note(working, step.index, `not dispatched: ${reason}; asking the commander to decide`);
  }
}

/**
 * Ready steps whose agent cannot take work (`input.unavailable`: disabled or deleted by
 * an admin) fail with the reason given, under their own on_failure. A real failure, not
 * a transient one: waiting would not bring the agent back, and the commander (asked by
 * default) can retry the step with another assignee. A for_each step is left to its
 * children, which fail one by one. Runs before dispatch, like budget refusals.
 */
export function refuseUnavailable(working: Working): void {
  const unavailable = working.input.unavailable;
  if (!unavailable || unavailable.size === 0) return;
  for (const step of readySteps(working.plan, working.now)) {
    // an abort_plan failure ended the plan: the other ready steps were skipped with it
    if (isTerminalPlan(working.plan.status)) return;
    const reason = unavailable.get(step.assignee);
    if (reason === undefined || step.forEach !== null) continue;
    note(working, step.index, `not dispatched: ${reason}`);
    handleFailure(working, step, { transient: false, reason });
  }
}

/**
 * Start ready steps in index order. A `user` step opens a form instead (no parallel
 * slot) and pauses the plan, so nothing after it is dispatched in this pass. A step
 * whose twin (same assignee, same normalized input) is running joins the twin's run
 * and takes no slot; otherwise it needs room in max_parallel and its pools. A
 * for_each child first needs one of its parent's slots (for_each max_parallel),
 * whichever way it starts: that bound counts children in progress, not runs.
 * A for_each step itself is never dispatched: expansion handles it.
 */
export function dispatchReady(working: Working): void {
  const { plan, now } = working;
  const liveAssignees = liveRunAssignees(plan);
  const pools = new Pools(working.input.capacity, liveAssignees);
  let running = liveAssignees.length;
  // the map holds the live step objects, so it stays current as this loop edits them
  const byIndex = stepsByIndex(plan);
  const liveChildren = liveChildCounts(plan.steps);
  const childSlotFree = (step: StepState) => {
    const limit = step.parentIndex === null ? null : (byIndex.get(step.parentIndex)?.forEach?.maxParallel ?? null);
    return limit === null || (liveChildren.get(step.parentIndex!) ?? 0) < limit;
  };
  const takeChildSlot = (step: StepState) => {
    if (step.parentIndex !== null) liveChildren.set(step.parentIndex, (liveChildren.get(step.parentIndex) ?? 0) + 1);
  };
  for (const step of readySteps(plan, now)) {
    if (step.forEach !== null || !childSlotFree(step)) continue;
    const renderedInput = renderTemplate({ template: step.input, request: plan.request, steps: byIndex });
    if (step.assignee === USER_ASSIGNEE) {
      step.status = "blocked";
      step.attempts += 1;
      step.startedAt ??= now;
      step.retryAt = null;
      step.liveRunId = null;
      step.renderedInput = renderedInput;
      takeChildSlot(step);
      working.commands.push({ type: "open-form", stepIndex: step.index, renderedInput });
      note(working, step.index, "form opened for a person to answer");
      return;
    }
    const twin = liveTwin(plan.steps, step, renderedInput);
    if (twin) {
      // joining costs nothing: no new run, no slot, no dispatch; the run's result fans out
      startStep(working, step, twin.liveRunId!, renderedInput);
      takeChildSlot(step);
      note(working, step.index, `shares run ${twin.liveRunId} with step ${twin.index} (same assignee and input; attempt ${step.attempts})`);
      continue;
    }
    if (running >= plan.maxParallel) continue;
    if (!pools.hasRoom(step.assignee)) continue;
    const runId = working.input.newRunId();
    const automaticRetry = isAutomaticRetry(step);
    startStep(working, step, runId, renderedInput);
    takeChildSlot(step);
    working.startedRuns.add(runId);
    pools.add(step.assignee);
    running += 1;
    working.commands.push({
      type: "dispatch",
      stepIndex: step.index,
      assignee: step.assignee,
      renderedInput,
      attempt: step.attempts,
      runId,
      automaticRetry,
    });
    note(working, step.index, `dispatched to ${step.assignee} (attempt ${step.attempts}, run ${runId})`);
  }
}

function startStep(working: Working, step: StepState, runId: string, renderedInput: string): void {
  step.status = "in_progress";
  step.attempts += 1;
  step.startedAt ??= working.now;
  step.retryAt = null;
  step.liveRunId = runId;
  // a new attempt may be hedged again
  step.hedgeRunId = null;
  step.hedgeModel = null;
  step.renderedInput = renderedInput;
}
