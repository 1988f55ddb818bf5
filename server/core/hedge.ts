/**
 * Hedged stragglers. When a step's run has gone on past what its agent usually takes
 * (the executor measures the p95 of the agent's recent steps and sends a `hedge`
 * event), the step gets a twin run on the agent's alternate model and the two race:
 *
 * - the first to finish (ok, or blocked on a form) is the step's result; the other is
 *   cancelled with the reason "lost the hedge";
 * - a failure (or loss) of one while the other still runs only drops that one: the
 *   step goes on with the survivor, and fails by its policy only if that fails too;
 * - at most one hedge per attempt (`hedgeModel` stays set until the next dispatch),
 *   never while the plan is paused, never for a run other steps share, and never when
 *   the plan's or the step's budget could not pay for the live run and the twin at
 *   what a run of the agent usually costs;
 * - a hedge run's usage counts like any run's; the loser's, once it is stopped, comes
 *   as a `run-usage` event.
 *
 * The twin is `hedgeRunId` on the step; everything else about the step is unchanged,
 * so single-flight, budgets and cascades treat the step as one step with one slot.
 */
import { addUsage, planUsage } from "./budget.ts";
import { note, releaseRuns, type Working } from "./reconcile-context.ts";
import { stepsSharingRun } from "./single-flight.ts";
import type { Budget, PlanEvent, PlanState, RunOutcome, RunUsage, StepState } from "./types.ts";

/** What the step log and a cancelled run say about the loser of a race. */
export const LOST_HEDGE = "lost the hedge";

type HedgeEvent = Extract<PlanEvent, { type: "hedge" }>;
type Outcome = "applied" | "ignored";
/** How a run's outcome lands on one step (reconcile-events.ts `applyOutcome`). */
type ApplyOutcome = (working: Working, step: StepState, runId: string, outcome: RunOutcome, shared: string) => void;

/** The in-progress step whose hedge twin is `runId`, if any. */
export function stepHedgedOn<T extends Pick<StepState, "status" | "hedgeRunId">>(steps: readonly T[], runId: string): T | undefined {
  return steps.find((step) => step.status === "in_progress" && step.hedgeRunId === runId);
}

/**
 * Whether `budget` can pay for the twin: what is used, plus the live run (not counted
 * until it ends) and the twin, each at the agent's usual cost.
 */
function overBudget(scope: string, used: RunUsage, estimate: RunUsage, budget: Budget): string | null {
  const tokens = 2 * estimate.tokens;
  const cost = 2 * estimate.cost;
  if (budget.maxTokens !== null && used.tokens + tokens > budget.maxTokens) {
    return `${scope} max_tokens cannot cover it (${used.tokens} used + ${tokens} for the live run and its twin > ${budget.maxTokens})`;
  }
  if (budget.maxCost !== null && used.cost + cost > budget.maxCost) {
    const figure = (value: number) => Number(value.toFixed(6));
    return `${scope} max_cost cannot cover it (${figure(used.cost)} used + ${figure(cost)} for the live run and its twin > ${budget.maxCost})`;
  }
  return null;
}

/** Why `step` may not be hedged as `event` asks, or null when it may. */
function hedgeRefusal(plan: PlanState, step: StepState, event: Pick<HedgeEvent, "runId" | "model" | "estimate">): string | null {
  if (step.status !== "in_progress") return `the step is ${step.status.replace("_", " ")}`;
  if (step.liveRunId !== event.runId) return `run ${event.runId} is no longer the step's live run`;
  if (step.hedgeModel !== null) return `attempt ${step.attempts} was already hedged on ${step.hedgeModel}`;
  if (event.model.trim() === "") return "no alternate model";
  if (plan.steps.some((other) => other.status === "blocked")) return "the plan is paused";
  if (stepsSharingRun(plan.steps, event.runId).length > 1) return `run ${event.runId} is shared with other steps`;
  return overBudget("plan", planUsage(plan), event.estimate, plan.budget) ?? overBudget("step", step.usage, event.estimate, step.budget);
}

/** The `hedge` event: start the twin, or say why not. */
export function startHedge(working: Working, event: HedgeEvent): Outcome {
  const step = working.plan.steps.find((candidate) => candidate.index === event.stepIndex);
  if (!step) {
    note(working, event.stepIndex, `step ${event.stepIndex} does not exist in this plan`);
    return "ignored";
  }
  const refusal = hedgeRefusal(working.plan, step, event);
  if (refusal !== null) {
    note(working, step.index, `not hedged: ${refusal}`);
    return "ignored";
  }
  const runId = working.input.newRunId();
  step.hedgeRunId = runId;
  step.hedgeModel = event.model;
  working.startedRuns.add(runId);
  working.commands.push({
    type: "hedge",
    stepIndex: step.index,
    assignee: step.assignee,
    renderedInput: step.renderedInput ?? step.input,
    attempt: step.attempts,
    runId,
    primaryRunId: event.runId,
    model: event.model,
  });
  note(working, step.index, `run ${event.runId} runs long: hedged on ${event.model} as run ${runId}`);
  return "applied";
}

/** A result of the hedge twin `runId` of `step`: it wins the race, or (failed) drops out of it. */
export function finishHedgeRun(
  working: Working,
  step: StepState,
  input: { runId: string; outcome: RunOutcome; applyOutcome: ApplyOutcome },
): Outcome {
  const { runId, outcome } = input;
  working.finishedRun = runId;
  step.usage = addUsage(step.usage, outcome.usage);
  if (outcome.kind === "failed") {
    step.hedgeRunId = null;
    note(working, step.index, `hedge run ${runId} failed (${outcome.reason}); run ${step.liveRunId} goes on`);
    return "applied";
  }
  const loser = step.liveRunId;
  step.liveRunId = runId;
  step.hedgeRunId = null;
  note(working, step.index, `hedge run ${runId} on ${step.hedgeModel} finished first`);
  input.applyOutcome(working, step, runId, outcome, "");
  // another step may have joined the primary since: releaseRuns keeps it for that one
  if (loser !== null) releaseRuns(working, [loser], "lost-hedge");
  return "applied";
}

/** The hedge twin `runId` of `step` was lost with its process: the primary goes on alone. */
export function loseHedgeRun(working: Working, step: StepState, runId: string): Outcome {
  working.finishedRun = runId;
  step.hedgeRunId = null;
  note(working, step.index, `hedge run ${runId} was lost with its process; run ${step.liveRunId} goes on`);
  return "applied";
}

/**
 * The step's primary run `runId` failed (or was lost) while its hedge twin runs: the
 * twin becomes the step's live run instead of the step failing. Returns whether it did.
 */
export function fallBackToHedge(working: Working, step: StepState, runId: string, reason: string): boolean {
  if (step.hedgeRunId === null || step.liveRunId !== runId) return false;
  step.liveRunId = step.hedgeRunId;
  step.hedgeRunId = null;
  note(working, step.index, `run ${runId} failed (${reason}); hedge run ${step.liveRunId} on ${step.hedgeModel} goes on`);
  return true;
}

/** The `run-usage` event: what a run stopped before its end (a hedge's loser, a Stop) spent counts toward the budgets, once. */
export function addLoserUsage(working: Working, event: Extract<PlanEvent, { type: "run-usage" }>): Outcome {
  const step = working.plan.steps.find((candidate) => candidate.index === event.stepIndex);
  const live = working.plan.steps.some((other) => other.liveRunId === event.runId || other.hedgeRunId === event.runId);
  if (!step || live) {
    note(working, event.stepIndex, `usage of run ${event.runId} ignored: ${step ? "the run is still live" : "no such step"}`);
    return "ignored";
  }
  step.usage = addUsage(step.usage, event.usage);
  note(working, step.index, `run ${event.runId}, stopped before its end, used ${event.usage.tokens} tokens`);
  return "applied";
}

/**
 * After every applied event: a step that left `in_progress` has no twin any more, and
 * a twin no step holds is stopped — as the loser of the race when its step finished
 * (done, or blocked on the winner's form), plainly when the step was skipped, failed
 * or cancelled. `before` is the plan the event was applied to.
 */
export function releaseOrphanedHedges(working: Working, before: PlanState): void {
  // the common case, no twin anywhere, costs one scan and allocates nothing (this runs after every event)
  if (!before.steps.some((step) => step.hedgeRunId !== null) && !working.commands.some((command) => command.type === "hedge")) return;
  for (const step of working.plan.steps) {
    if (step.status !== "in_progress" && step.hedgeRunId !== null) step.hedgeRunId = null;
  }
  const held = new Set<string>();
  for (const step of working.plan.steps) {
    if (step.liveRunId !== null) held.add(step.liveRunId);
    if (step.hedgeRunId !== null) held.add(step.hedgeRunId);
  }
  // twins of before, and twins this very reconcile started (an abort after a hedge withdraws it)
  const twins = before.steps.flatMap((step) => (step.hedgeRunId === null ? [] : [{ index: step.index, runId: step.hedgeRunId }]));
  for (const command of working.commands) if (command.type === "hedge") twins.push({ index: command.stepIndex, runId: command.runId });
  for (const twin of twins) {
    if (held.has(twin.runId)) continue;
    const now = working.plan.steps.find((step) => step.index === twin.index);
    const won = now?.status === "done" || now?.status === "blocked";
    if (won) note(working, twin.index, `hedge run ${twin.runId} cancelled: ${LOST_HEDGE}`);
    releaseRuns(working, [twin.runId], won ? "lost-hedge" : undefined);
  }
}
