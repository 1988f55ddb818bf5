/**
 * Test-only: the liveness invariant, checked after every reconcile by
 * reconcile.property.test.ts. No plan may sit with a ready step, free capacity and
 * no live run: after a reconcile of a running plan, every step that is ready (the
 * rule re-stated here) is held back only by a full max_parallel, a full agent or
 * model pool, or its for_each parent's bound; and a plan with nothing in progress
 * and no decision awaited is waiting for a retry time — durable state a sweep acts on.
 */
import { isSuccessfulEnough, isTerminalPlan } from "../status.ts";
import { isCollector } from "./property-invariants-for-each.ts";
import type { Coverage } from "./property-coverage.ts";
import type { CapacityView, PlanState, StepState } from "../types.ts";

function ensure(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

/** Ready, re-stated: pending, past its retry time, and its requirement met. */
function isReady(step: StepState, byIndex: ReadonlyMap<number, StepState>, now: number): boolean {
  if (step.status !== "pending" || (step.retryAt !== null && step.retryAt > now)) return false;
  const deps = step.waitFor.map((index) => byIndex.get(index)!);
  const met = (dep: StepState) =>
    step.optionalWaitFor.includes(dep.index)
      ? isSuccessfulEnough(dep.status) || (dep.status === "failed" && !dep.decisionPending)
      : isSuccessfulEnough(dep.status) || (dep.status === "failed" && dep.onFailure === "continue" && !dep.decisionPending);
  if (step.quorum !== null) return deps.filter((dep) => dep.status === "done").length >= step.quorum;
  return deps.every(met);
}

export function checkLiveness({
  after,
  capacity,
  now,
  coverage,
}: {
  after: PlanState;
  capacity: CapacityView;
  now: number;
  coverage: Coverage;
}): void {
  if (isTerminalPlan(after.status) || after.status === "paused") return;
  const byIndex = new Map(after.steps.map((step) => [step.index, step] as const));
  const live = after.steps.filter((step) => step.status === "in_progress" && !isCollector(step));
  const liveRuns = new Map(live.map((step) => [step.liveRunId!, step.assignee] as const));
  const count = <K>(keys: Iterable<K | undefined>) => {
    const counts = new Map<K, number>();
    for (const key of keys) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    return counts;
  };
  const byAssignee = count(liveRuns.values());
  const byModel = count([...liveRuns.values()].map((assignee) => capacity.agentModel[assignee]));
  const childrenLive = count(after.steps.filter((step) => step.status === "in_progress").map((step) => step.parentIndex ?? undefined));
  const poolFull = (assignee: string) => {
    const agent = capacity.agents[assignee];
    if (agent && agent.live + (byAssignee.get(assignee) ?? 0) >= agent.limit) return true;
    const model = capacity.agentModel[assignee];
    const modelPool = model === undefined ? undefined : capacity.models[model];
    return modelPool !== undefined && modelPool.live + (byModel.get(model) ?? 0) >= modelPool.limit;
  };
  const childBoundFull = (step: StepState) => {
    if (step.parentIndex === null) return false;
    const limit = byIndex.get(step.parentIndex)?.forEach?.maxParallel ?? null;
    return limit !== null && (childrenLive.get(step.parentIndex) ?? 0) >= limit;
  };
  for (const step of after.steps) {
    if (!isReady(step, byIndex, now)) continue;
    const heldBy =
      liveRuns.size >= after.maxParallel
        ? "max_parallel"
        : poolFull(step.assignee)
          ? "pool"
          : childBoundFull(step)
            ? "for_each bound"
            : null;
    ensure(
      heldBy !== null,
      () => `step ${step.index} is ready with free capacity but was not started (${liveRuns.size}/${after.maxParallel} runs live)`,
    );
    if (heldBy !== "for_each bound") coverage.capacityHeld += 1;
  }
  const inProgress = after.steps.some((step) => step.status === "in_progress");
  const deciding = after.steps.some((step) => step.decisionPending);
  if (!inProgress && !deciding) {
    // nothing live and nobody deciding: only a retry time can be what the plan waits for
    const waitsForTime = after.steps.some((step) => step.status === "pending" && step.retryAt !== null && step.retryAt > now);
    ensure(waitsForTime, () => `plan ${after.status} with no live run, no decision awaited and nothing waiting for a retry time`);
    coverage.waitingOnTime += 1;
  }
}
