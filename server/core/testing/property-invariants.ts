/**
 * Test-only (never imported by production code): the invariants that
 * reconcile.property.test.ts checks after every single reconcile. The rules are
 * re-stated here independently of the production helpers (readiness, single-flight,
 * budget), so a bug there cannot hide itself.
 */
import { expect } from "vitest";
import { checkForEachInvariants, isCollector } from "./property-invariants-for-each.ts";
import { checkLiveness } from "./property-invariants-liveness.ts";
import { checkRecoveryInvariants } from "./property-invariants-recovery.ts";
import type { Coverage } from "./property-coverage.ts";
import { isSuccessfulEnough, isTerminalPlan, isTerminalStep } from "../status.ts";
import type { CapacityView, PlanEvent, PlanState, ReconcileResult, RunUsage, StepState } from "../types.ts";

export { emptyCoverage, type Coverage } from "./property-coverage.ts";

/** A cheap assertion for per-step loops: `expect` per step made the property test several times slower. */
function ensure(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

function eventStepIndex(event: PlanEvent): number | null {
  return "stepIndex" in event ? event.stepIndex : null;
}

function sameStep(a: StepState, b: StepState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function key(step: StepState): string {
  return `${step.assignee}\u0000${(step.renderedInput ?? "").trim().replace(/\s+/g, " ")}`;
}

function totalUsage(plan: PlanState): RunUsage {
  return plan.steps.reduce((sum, step) => ({ tokens: sum.tokens + step.usage.tokens, cost: sum.cost + step.usage.cost }), {
    tokens: 0,
    cost: 0,
  });
}

/** Failed for good under continue: its dependants go on as past a skipped step. */
const continuedPast = (dep: StepState) => dep.status === "failed" && dep.onFailure === "continue" && !dep.decisionPending;

/** The requirement, re-stated: quorum counts done/skipped/continued past (not stragglers it released itself). */
function requirementHolds(step: StepState, byIndex: ReadonlyMap<number, StepState>): boolean {
  const deps = step.waitFor.map((index) => byIndex.get(index)!);
  if (step.quorum !== null) {
    const released = `not needed: quorum of step ${step.index} reached`;
    return (
      deps.filter((dep) => dep.status === "done" || continuedPast(dep) || (dep.status === "skipped" && dep.failureReason !== released))
        .length >= step.quorum
    );
  }
  return deps.every((dep) =>
    step.optionalWaitFor.includes(dep.index)
      ? isSuccessfulEnough(dep.status) || (dep.status === "failed" && !dep.decisionPending)
      : isSuccessfulEnough(dep.status) || continuedPast(dep),
  );
}

function withinBudget(plan: PlanState, step: StepState): boolean {
  const total = totalUsage(plan);
  const under = (used: number, limit: number | null) => limit === null || used < limit;
  return (
    under(total.tokens, plan.budget.maxTokens) &&
    under(total.cost, plan.budget.maxCost) &&
    under(step.usage.tokens, step.budget.maxTokens) &&
    under(step.usage.cost, step.budget.maxCost)
  );
}

export function checkInvariants({
  before,
  event,
  result,
  capacity,
  now,
  seenRunIds,
  coverage,
}: {
  before: PlanState;
  event: PlanEvent;
  result: ReconcileResult;
  capacity: CapacityView;
  now: number;
  seenRunIds: Set<string>;
  coverage: Coverage;
}): void {
  const after = result.plan;
  const beforeByIndex = new Map(before.steps.map((step) => [step.index, step] as const));
  const afterByIndex = new Map(after.steps.map((step) => [step.index, step] as const));
  const eventRun = "runId" in event ? event.runId : null;
  const runWasLive = eventRun !== null && before.steps.some((step) => step.status === "in_progress" && step.liveRunId === eventRun);
  const eventSharers = new Set(
    before.steps.filter((step) => runWasLive && step.status === "in_progress" && step.liveRunId === eventRun).map((step) => step.index),
  );

  // (6) stale results change nothing
  if ((event.type === "run-finished" || event.type === "run-lost") && event.runId === "stale-run") {
    expect(after).toEqual(before);
    expect(result.commands).toEqual([]);
    expect(result.changedSteps).toEqual([]);
  }

  // changedSteps is exactly the set of steps that differ
  const differing = after.steps
    .filter((step) => !beforeByIndex.has(step.index) || !sameStep(beforeByIndex.get(step.index)!, step))
    .map((step) => step.index);
  expect([...result.changedSteps].sort((a, b) => a - b)).toEqual(differing.sort((a, b) => a - b));

  checkForEachInvariants({ before, after, result, now, coverage });
  checkTaint({ before, after, event, coverage });
  checkRecoveryInvariants({ before, event, result, coverage });
  // an ignored event (a stale result, a refused control) changes nothing, dispatch
  // included: readiness that only the clock brought is the retry timer's to act on
  // (durable, and swept), which the driver fires as a tick
  if (result.ignored === undefined) checkLiveness({ after, capacity, now, coverage });

  // usage never decreases, and grows by exactly what an accepted run reported (a shared run counts once)
  for (const step of after.steps) {
    const previous = beforeByIndex.get(step.index);
    ensure(
      step.usage.tokens >= (previous?.usage.tokens ?? 0) && step.usage.cost >= (previous?.usage.cost ?? 0),
      () => `step ${step.index}: usage decreased`,
    );
  }
  const reported = event.type === "run-finished" && runWasLive ? event.outcome.usage : undefined;
  expect(totalUsage(after).tokens - totalUsage(before).tokens).toBe(reported?.tokens ?? 0);
  expect(totalUsage(after).cost - totalUsage(before).cost).toBeCloseTo(reported?.cost ?? 0, 9);

  const isRetryEvent =
    event.type === "retry-step" || event.type === "reopen" || (event.type === "commander-decision" && event.decision.kind === "retry");
  // retrying a for_each step re-runs its failed children: they restart by the same event;
  // a reopen also brings back the steps that were skipped because of the one it retries
  const retriedByEvent = (index: number) => {
    const previous = beforeByIndex.get(index);
    if (event.type === "reopen" && result.ignored === undefined) return previous?.status === "failed" || previous?.status === "skipped";
    return (
      previous?.status === "failed" &&
      isRetryEvent &&
      (eventStepIndex(event) === index || (previous.parentIndex !== null && eventStepIndex(event) === previous.parentIndex))
    );
  };
  // a step whose run this event ended with a failure a stronger model could fix starts
  // its escalated attempt at once, the only time a step moves from one run to the next
  // in one reconcile; and a step escalates once: its escalated attempt, once set, stays
  const escalatedByEvent = (index: number) => {
    const previous = beforeByIndex.get(index);
    const next = afterByIndex.get(index);
    return (
      event.type === "run-finished" &&
      event.outcome.kind === "failed" &&
      event.outcome.escalation !== undefined &&
      previous?.status === "in_progress" &&
      previous.liveRunId === event.runId &&
      previous.escalatedAttempt === null &&
      next?.escalatedAttempt === previous.attempts + 1 &&
      next.attempts === next.escalatedAttempt
    );
  };
  for (const step of after.steps) {
    const previous = beforeByIndex.get(step.index);
    if (previous?.escalatedAttempt != null) expect(step.escalatedAttempt).toBe(previous.escalatedAttempt);
  }
  const started = new Set<number>();
  const startedRuns = new Map<string, number>();
  for (const command of result.commands) {
    if (command.type === "dispatch" || command.type === "open-form") {
      // (1) never a step already running: only one that was pending, just appended, or
      // failed and retried by this very event
      const previous = beforeByIndex.get(command.stepIndex);
      expect(
        previous === undefined || previous.status === "pending" || retriedByEvent(command.stepIndex) || escalatedByEvent(command.stepIndex),
      ).toBe(true);
      if (escalatedByEvent(command.stepIndex)) coverage.escalated += 1;
      expect(started.has(command.stepIndex)).toBe(false);
      started.add(command.stepIndex);
      expect(afterByIndex.get(command.stepIndex)!.renderedInput).toBe(command.renderedInput);
    }
    if (command.type === "dispatch") {
      // an attempt goes out quietly (no new hand-off message) only when an earlier one was posted
      if (command.automaticRetry) expect(command.attempt > 1 && beforeByIndex.has(command.stepIndex)).toBe(true);
      // no dispatch past a budget: the plan total and the step's own usage are under every limit
      expect(withinBudget(after, afterByIndex.get(command.stepIndex)!)).toBe(true);
      // never a dispatch while an identical subtask is live on another run
      const step = afterByIndex.get(command.stepIndex)!;
      for (const other of before.steps) {
        if (other.index === step.index || other.status !== "in_progress" || key(other) !== key(step)) continue;
        expect(
          afterByIndex.get(other.index)!.status === "in_progress" && afterByIndex.get(other.index)!.liveRunId === other.liveRunId,
        ).toBe(false);
      }
    }
    if (command.type === "dispatch" || command.type === "resume") {
      expect(seenRunIds.has(command.runId)).toBe(false);
      seenRunIds.add(command.runId);
      expect(afterByIndex.get(command.stepIndex)!.liveRunId).toBe(command.runId);
      startedRuns.set(command.runId, command.stepIndex);
    }
    if (command.type === "resume") expect(beforeByIndex.get(command.stepIndex)!.status).toBe("blocked");
    if (command.type === "cancel-run") {
      // only a run that was live, that no step is live on any more, and that is not the one reporting
      expect(command.runId).not.toBe(eventRun);
      expect(before.steps.some((step) => step.status === "in_progress" && step.liveRunId === command.runId)).toBe(true);
      expect(after.steps.some((step) => step.status === "in_progress" && step.liveRunId === command.runId)).toBe(false);
    }
  }
  const cancels = result.commands.flatMap((command) => (command.type === "cancel-run" ? [command.runId] : []));
  expect(new Set(cancels).size).toBe(cancels.length);

  // every step that started in this reconcile did so legitimately: a command, or joining a live twin
  for (const step of after.steps) {
    const previous = beforeByIndex.get(step.index);
    const startedNow =
      (step.status === "in_progress" || step.status === "blocked") &&
      (previous === undefined || (previous.status !== "in_progress" && previous.status !== "blocked"));
    if (!startedNow) continue;
    // (2) never before its requirement is met
    ensure(requirementHolds(step, afterByIndex), () => `step ${step.index} started before its requirement was met`);
    if (started.has(step.index)) continue;
    if (isCollector(step)) {
      // a for_each step starts collecting by expanding (pending, or just appended) or by a retry of its failed items
      ensure(
        previous === undefined || previous.status === "pending" || retriedByEvent(step.index),
        () => `for_each step ${step.index} started collecting from ${previous?.status}`,
      );
      continue;
    }
    // no command: it joined a live twin's run (single-flight), from pending, within budget
    ensure(step.status === "in_progress", () => `step ${step.index} blocked without a form`);
    ensure(
      previous === undefined || previous.status === "pending" || retriedByEvent(step.index),
      () => `step ${step.index} joined a run from ${previous?.status}`,
    );
    const twin = after.steps.find((other) => other !== step && other.status === "in_progress" && other.liveRunId === step.liveRunId);
    ensure(twin !== undefined && key(twin) === key(step), () => `step ${step.index} started without a dispatch and without a twin`);
    ensure(withinBudget(after, step), () => `step ${step.index} joined a run past a budget`);
    coverage.shared += 1;
  }

  // single-flight: at most one live run per (assignee, normalized input)
  // a collecting for_each step is in progress without a run: it holds no slot
  const live = after.steps.filter((step) => step.status === "in_progress" && !isCollector(step));
  const runsByKey = new Map<string, Set<string>>();
  for (const step of live) {
    ensure(step.liveRunId !== null && step.renderedInput !== null, () => `live step ${step.index} without a run id or rendered input`);
    if (step.assignee === "user") continue;
    const runs = runsByKey.get(key(step)) ?? new Set<string>();
    runs.add(step.liveRunId!);
    runsByKey.set(key(step), runs);
  }
  for (const [twins, runs] of runsByKey) ensure(runs.size === 1, () => `${runs.size} live runs for one subtask ${JSON.stringify(twins)}`);

  // (3) bounded concurrency, counted in runs (steps sharing one run take one slot): per plan, per agent, per model
  const liveRuns = new Map(live.map((step) => [step.liveRunId!, step.assignee] as const));
  expect(liveRuns.size).toBeLessThanOrEqual(after.maxParallel);
  for (const [handle, pool] of Object.entries(capacity.agents)) {
    expect(pool.live + [...liveRuns.values()].filter((assignee) => assignee === handle).length).toBeLessThanOrEqual(pool.limit);
  }
  for (const [model, pool] of Object.entries(capacity.models)) {
    expect(pool.live + [...liveRuns.values()].filter((assignee) => capacity.agentModel[assignee] === model).length).toBeLessThanOrEqual(
      pool.limit,
    );
  }

  for (const step of after.steps) {
    const previous = beforeByIndex.get(step.index);
    if (step.status === "skipped" && previous?.status !== "skipped" && step.failureReason?.startsWith("not needed: quorum"))
      coverage.quorumReleased += 1;
    if (step.failureReason?.startsWith("budget exhausted:") && previous?.failureReason !== step.failureReason) coverage.budgetRefused += 1;
  }

  const ended = result.commands.filter((command) => command.type === "plan-ended");
  if (isTerminalPlan(after.status)) {
    // (5) an ending (abort, cancel, natural) leaves nothing open and cancels exactly the other live runs
    if (!isTerminalPlan(before.status)) {
      expect(ended).toEqual([{ type: "plan-ended", status: after.status }]);
      const eventStep = eventStepIndex(event);
      let budgetAborts = 0;
      for (const previous of before.steps) {
        if (isTerminalStep(previous.status) || previous.index === eventStep || eventSharers.has(previous.index)) continue;
        const step = afterByIndex.get(previous.index)!;
        // the one step whose repeated budget refusal stopped the plan fails; every other open step is skipped
        if (step.status === "failed" && step.failureReason?.startsWith("budget exhausted after 3 decisions: ")) {
          budgetAborts += 1;
          continue;
        }
        // ... except for_each steps that failed on their own, without a run: their list was too long or
        // items failed (several at once when they read one list; an abort among them drops the others' asks)
        if (step.status === "failed" && step.forEach !== null && /^(for_each: |\d+ of \d+ items failed)/.test(step.failureReason ?? ""))
          continue;
        // a for_each step completes without a run of its own: with its last child, or over an empty
        // list (its result is checked in property-invariants-for-each.ts)
        if (step.status === "done" && step.forEach !== null) continue;
        expect(step).toMatchObject({ status: "skipped" });
      }
      expect(budgetAborts).toBeLessThanOrEqual(1);
      if (after.steps.some((step) => step.status === "failed" && step.failureReason?.startsWith("budget exhausted after 3 decisions: ")))
        coverage.budgetAborted += 1;
      const expectedCancels = [
        ...new Set(
          before.steps
            .filter((step) => step.status === "in_progress" && !isCollector(step) && step.liveRunId !== eventRun)
            .map((step) => step.liveRunId!),
        ),
      ].sort();
      expect([...cancels].sort()).toEqual(expectedCancels);
      expect(result.commands.filter((command) => command.type === "ask-commander")).toEqual([]);
      // nothing is started in the reconcile that ends the plan (a resume the abort overtook is withdrawn)
      expect(startedRuns.size).toBe(0);
    }
    for (const step of after.steps) {
      ensure(
        isTerminalStep(step.status) && !step.decisionPending,
        () => `ended plan with step ${step.index} ${step.status}, decision pending ${step.decisionPending}`,
      );
    }
    if (after.status === "completed") expect(after.steps.every((step) => isSuccessfulEnough(step.status))).toBe(true);
    if (!isTerminalPlan(before.status)) checkOutcome(after, result, coverage);
  } else {
    expect(ended).toEqual([]);
    expect(after.status === "paused").toBe(after.steps.some((step) => step.status === "blocked"));
    // a retry in backoff always has a tick coming
    const retries = after.steps
      .filter((step) => step.status === "pending" && step.retryAt !== null && step.retryAt > now)
      .map((step) => step.retryAt!);
    if (retries.length > 0 && result.changedSteps.length > 0) {
      expect(result.commands).toContainEqual({ type: "schedule-tick", at: Math.min(...retries) });
    }
    // every commander that is asked has a decision to make
    for (const command of result.commands) {
      if (command.type === "ask-commander") expect(afterByIndex.get(command.stepIndex)!.decisionPending).toBe(true);
    }
  }
}

/**
 * Taint follows the data: a step that a run just finished whose input received an
 * untrusted upstream summary (a `{{step_N.output_summary}}` of a step done with
 * untrusted output), or a for_each item from an untrusted list, in what it read, is untrusted itself,
 * whatever the run reported.
 */
function checkTaint({
  before,
  after,
  event,
  coverage,
}: {
  before: PlanState;
  after: PlanState;
  event: PlanEvent;
  coverage: Coverage;
}): void {
  if (event.type !== "run-finished" || event.outcome.kind !== "ok") return;
  const afterByIndex = new Map(after.steps.map((step) => [step.index, step] as const));
  for (const previous of before.steps) {
    const step = afterByIndex.get(previous.index)!;
    if (previous.status !== "in_progress" || step.status !== "done" || previous.liveRunId !== event.runId) continue;
    const upstream = [...step.input.matchAll(/\{\{\s*step_(\d+)\.output_summary\s*\}\}/g)].map((match) =>
      afterByIndex.get(Number(match[1])),
    );
    // What the run read is its input as rendered at dispatch, not the upstream as it is now:
    // an upstream that failed then renders "(step N has no output)", Baton's own words, and
    // may be retried to an untrusted "done" while this step runs. Its untrusted summary
    // reached this step only if the read holds it fenced under its step's name (every
    // untrusted summary is rendered so); a bare substring match took an empty or common
    // summary for one this step never saw.
    const read = previous.renderedInput ?? "";
    const fromSummary = upstream.some((source) => source !== undefined && read.includes(`<untrusted-data source="step_${source.index}">`));
    const parent = step.parentIndex === null ? undefined : afterByIndex.get(step.parentIndex);
    // likewise an item of an untrusted list taints the child that read it; a child the
    // commander retried with new input that leaves the item out read none of it
    const item = parent?.expansion ? parent.expansion.items[parent.expansion.children.indexOf(step.index)] : undefined;
    const fromItem =
      parent?.forEach != null &&
      afterByIndex.get(parent.forEach.from)?.outputUntrusted === true &&
      item !== undefined &&
      read.includes(item);
    if (!fromSummary && !fromItem) continue;
    ensure(step.outputUntrusted, () => `step ${step.index} read untrusted input but its output is trusted`);
    if (!event.outcome.untrusted) coverage.taintInherited += 1;
  }
}

/**
 * The outcome, re-stated: an abort fails the plan; otherwise completed when every step
 * is done (a straggler a quorum let go counts as done), partial when some result step
 * (top-level, nobody waits for it) is done, failed when none is.
 */
function checkOutcome(after: PlanState, result: ReconcileResult, coverage: Coverage): void {
  if (after.status === "cancelled") return;
  const aborted = result.log.some((line) => line.stepIndex === null && line.message.startsWith("plan failed: "));
  if (aborted) {
    expect(after.status).toBe("failed");
    return;
  }
  const waitedFor = new Set(after.steps.flatMap((step) => step.waitFor));
  const delivered = after.steps.some((step) => step.parentIndex === null && !waitedFor.has(step.index) && step.status === "done");
  const allDone = after.steps.every(
    (step) => step.status === "done" || (step.status === "skipped" && (step.failureReason ?? "").startsWith("not needed: quorum of step ")),
  );
  const expected = allDone ? "completed" : delivered ? "partial" : "failed";
  ensure(
    after.status === expected,
    () => `plan ended ${after.status}, expected ${expected}: ${after.steps.map((step) => `${step.index}:${step.status}`).join(" ")}`,
  );
  if (expected === "completed") coverage.endedCompleted += 1;
  else if (expected === "partial") coverage.endedPartial += 1;
  else coverage.endedFailedNoResult += 1;
}
