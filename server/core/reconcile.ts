/**
 * reconcile: state in, commands out. Runs once per event under the conversation
 * lock; the executor writes back the returned plan and carries out the commands
 * in the same transaction, so "record what finished" and "decide what runs next"
 * are one atomic unit.
 *
 * Decisions worth knowing (the tests pin each one):
 * - Only the step's live run may report on it; results from any other run are
 *   stale and ignored outright (no state change, no commands).
 * - A blocked step keeps `liveRunId` = the run that blocked, so the form answer can
 *   resume that session; `resume` starts a new run id and names the old one.
 * - While any step is blocked the plan is paused: live runs go on, nothing new is
 *   dispatched. Resuming takes no new slot (see form-answered).
 * - The commander's `append` skips the failed step it replaces, so the failed
 *   step's downstream proceeds alongside the appended steps.
 * - A pending step downstream of a failed step that awaits no decision is skipped
 *   ("upstream step N failed") so the plan can end instead of hanging.
 */
import { note, startWorking, type Working } from "./reconcile-context.ts";
import { handlers } from "./reconcile-events.ts";
import { readySteps } from "./readiness.ts";
import { isTerminalPlan } from "./status.ts";
import { renderTemplate } from "./templates.ts";
import {
  USER_ASSIGNEE,
  type CapacityView,
  type PlanEvent,
  type PlanState,
  type ReconcileInput,
  type ReconcileResult,
  type StepState,
} from "./types.ts";

/**
 * Apply one event to a plan and decide what happens next. Pure: the input is
 * never mutated (a new plan is returned), time, randomness and run ids come from
 * the input. Ignored events (terminal plan, stale run, unknown step, a control
 * that does not apply) return the input plan unchanged with no commands.
 */
export function reconcile(input: ReconcileInput): ReconcileResult {
  if (isTerminalPlan(input.plan.status)) {
    return ignored(input, `plan is ${input.plan.status}; ${input.event.type} ignored`);
  }
  const working = startWorking(input);
  const outcome = dispatchEvent(working, input.event);
  if (outcome === "ignored") {
    return { plan: input.plan, commands: [], changedSteps: [], log: working.log };
  }
  if (!isTerminalPlan(working.plan.status)) settle(working);
  return {
    plan: working.plan,
    commands: working.commands,
    changedSteps: changedSteps(input.plan, working.plan),
    log: working.log,
  };
}

function ignored(input: ReconcileInput, message: string): ReconcileResult {
  return { plan: input.plan, commands: [], changedSteps: [], log: [{ stepIndex: null, message }] };
}

function dispatchEvent(working: Working, event: PlanEvent) {
  // the cast is safe: the handler is looked up by the event's own type
  const handler = handlers[event.type] as (working: Working, event: PlanEvent) => "applied" | "ignored";
  return handler(working, event);
}

/** The common tail after every applied event on a plan that has not ended. */
function settle(working: Working): void {
  skipDoomedSteps(working);
  const wasStatus = working.plan.status;
  if (!working.plan.steps.some((step) => step.status === "blocked")) dispatchReady(working);
  const blocked = working.plan.steps.find((step) => step.status === "blocked");
  working.plan.status = blocked ? "paused" : "running";
  if (wasStatus !== working.plan.status) {
    note(working, null, blocked ? `plan paused: step ${blocked.index} waits for a form answer` : "plan running");
  }
  if (endIfSettled(working)) return;
  scheduleNextRetry(working);
}

/**
 * A pending step downstream of a failed step that awaits no decision can never
 * run; skip it so the plan can end. Index order visits upstream first (wait_for
 * only names earlier steps), so one pass covers whole chains.
 */
function skipDoomedSteps(working: Working): void {
  const doomedBy = new Map<number, number>();
  for (const step of [...working.plan.steps].sort((a, b) => a.index - b.index)) {
    if (step.status === "failed" && !step.decisionPending) doomedBy.set(step.index, step.index);
    if (step.status !== "pending") continue;
    for (const waitIndex of step.waitFor) {
      const root = doomedBy.get(waitIndex);
      if (root === undefined) continue;
      const reason = `upstream step ${root} failed`;
      step.status = "skipped";
      step.failureReason = reason;
      step.retryAt = null;
      step.endedAt = working.now;
      doomedBy.set(step.index, root);
      note(working, step.index, `skipped: ${reason}`);
      break;
    }
  }
}

function stepsByIndex(plan: PlanState): Map<number, StepState> {
  return new Map(plan.steps.map((step) => [step.index, step] as const));
}

/** Live runs per pool, counting runs elsewhere (capacity) and in this plan. */
class Pools {
  private readonly agentLive = new Map<string, number>();
  private readonly modelLive = new Map<string, number>();

  constructor(private readonly capacity: CapacityView, live: readonly StepState[]) {
    for (const step of live) this.add(step.assignee);
  }

  hasRoom(assignee: string): boolean {
    const agent = this.capacity.agents[assignee];
    if (agent && agent.live + (this.agentLive.get(assignee) ?? 0) >= agent.limit) return false;
    const modelId = this.capacity.agentModel[assignee];
    const model = modelId === undefined ? undefined : this.capacity.models[modelId];
    if (model && model.live + (this.modelLive.get(modelId!) ?? 0) >= model.limit) return false;
    return true;
  }

  add(assignee: string): void {
    this.agentLive.set(assignee, (this.agentLive.get(assignee) ?? 0) + 1);
    const modelId = this.capacity.agentModel[assignee];
    if (modelId !== undefined) this.modelLive.set(modelId, (this.modelLive.get(modelId) ?? 0) + 1);
  }
}

/**
 * Start ready steps in index order within max_parallel and the agent and model
 * pools. A `user` step opens a form instead (no parallel slot) and pauses the
 * plan, so nothing after it is dispatched in this pass.
 */
function dispatchReady(working: Working): void {
  const { plan, now } = working;
  const live = plan.steps.filter((step) => step.status === "in_progress");
  const pools = new Pools(working.input.capacity, live);
  let running = live.length;
  for (const step of readySteps(plan, now)) {
    const rendered = () => renderTemplate({ template: step.input, request: plan.request, steps: stepsByIndex(plan) });
    if (step.assignee === USER_ASSIGNEE) {
      step.status = "blocked";
      step.attempts += 1;
      step.startedAt ??= now;
      step.retryAt = null;
      step.liveRunId = null;
      working.commands.push({ type: "open-form", stepIndex: step.index, renderedInput: rendered() });
      note(working, step.index, "form opened for a person to answer");
      return;
    }
    if (running >= plan.maxParallel) continue;
    if (!pools.hasRoom(step.assignee)) continue;
    const runId = working.input.newRunId();
    step.status = "in_progress";
    step.attempts += 1;
    step.startedAt ??= now;
    step.retryAt = null;
    step.liveRunId = runId;
    pools.add(step.assignee);
    running += 1;
    working.commands.push({
      type: "dispatch",
      stepIndex: step.index,
      assignee: step.assignee,
      renderedInput: rendered(),
      attempt: step.attempts,
      runId,
    });
    note(working, step.index, `dispatched to ${step.assignee} (attempt ${step.attempts}, run ${runId})`);
  }
}

/** The plan ends when nothing is open and no decision is awaited. Returns whether it ended. */
function endIfSettled(working: Working): boolean {
  const steps = working.plan.steps;
  const open = steps.some(
    (step) => step.status === "pending" || step.status === "in_progress" || step.status === "blocked" || step.decisionPending,
  );
  if (open) return false;
  const status = steps.some((step) => step.status === "failed") ? "failed" : "completed";
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

function sameStep(a: StepState, b: StepState): boolean {
  for (const key of Object.keys(a) as (keyof StepState)[]) {
    const left = a[key];
    const right = b[key];
    if (Array.isArray(left) && Array.isArray(right)) {
      if (left.length !== right.length || left.some((value, i) => value !== right[i])) return false;
    } else if (left !== right) {
      return false;
    }
  }
  return true;
}

function changedSteps(before: PlanState, after: PlanState): number[] {
  const previous = stepsByIndex(before);
  return after.steps
    .filter((step) => {
      const old = previous.get(step.index);
      return old === undefined || !sameStep(old, step);
    })
    .map((step) => step.index);
}
