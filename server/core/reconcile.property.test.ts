/**
 * Property tests: random DAGs (required and optional edges, quorums, repeated
 * inputs, budgets, for_each steps) driven by a random driver (finish runs ok —
 * sometimes with list summaries and files to map over — transient, fatal or blocked
 * with random usage, answer forms and decisions, fire ticks, stop a step, retry a
 * failed one, sometimes cancel, and now and then reopen the plan after it ended).
 * Invariants (property-invariants.ts, property-invariants-for-each.ts) are checked
 * after every reconcile.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyCoverage, checkInvariants, type Coverage } from "./testing/property-invariants.ts";
import {
  buildCapacity,
  buildPlan,
  chooseEvent,
  chooseReopen,
  makeDriver,
  scenarioArbitrary,
  type Scenario,
} from "./testing/property-scenario.ts";
import { reconcile } from "./reconcile.ts";
import { isTerminalPlan, isTerminalStep } from "./status.ts";
import { deepFreeze } from "./testing/fixtures.ts";
import type { PlanEvent, PlanState } from "./types.ts";

const MAX_EVENTS = 600;
/** after this many events the driver only makes progress, so every run must end */
const WIND_DOWN_AFTER = 300;
/** reopens of an ended plan per scenario */
const MAX_REOPENS = 2;

function simulate(scenario: Scenario, coverage: Coverage): { events: number; final: PlanState } {
  const driver = makeDriver(scenario.seed, scenario.harsh);
  const capacity = deepFreeze(buildCapacity(scenario));
  let plan = buildPlan(scenario);
  let now = 1_000_000;
  let runCounter = 0;
  const newRunId = () => `run-${++runCounter}`;
  const seenRunIds = new Set<string>();
  const decisions = new Map<number, number>();
  let event: PlanEvent | null = { type: "plan-created" };
  let events = 0;
  let reopens = 0;
  while (event !== null && events < MAX_EVENTS) {
    events += 1;
    if (event.type === "tick") {
      const retries = plan.steps.filter((step) => step.status === "pending" && step.retryAt !== null).map((step) => step.retryAt!);
      if (retries.length > 0) now = Math.max(now, Math.min(...retries));
    }
    const before = deepFreeze(plan);
    // (7) the frozen input would throw on any mutation
    const result = reconcile({ plan: before, event: deepFreeze(event), now, random: driver.random, newRunId, capacity });
    checkInvariants({ before, event, result, capacity, now, seenRunIds, coverage });
    plan = result.plan;
    now += Math.floor(driver.random() * 50);
    if (isTerminalPlan(plan.status)) {
      // now and then a member retries a step of the ended plan (bounded, and early enough to end again)
      const reopen = reopens < MAX_REOPENS && events < WIND_DOWN_AFTER && driver.chance(0.3) ? chooseReopen(driver, plan) : null;
      if (reopen === null) break;
      reopens += 1;
      event = reopen;
      continue;
    }
    event = chooseEvent(driver, plan, events >= WIND_DOWN_AFTER, decisions);
  }
  return { events, final: plan };
}

describe("reconcile properties", () => {
  it("holds every invariant under random DAGs and random drivers, and always terminates", () => {
    const coverage = emptyCoverage();
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { events, final } = simulate(scenario, coverage);
        expect(events).toBeLessThan(MAX_EVENTS);
        // (4) the driver ends with the plan ended and every step terminal
        expect(isTerminalPlan(final.status)).toBe(true);
        for (const step of final.steps) expect(isTerminalStep(step.status)).toBe(true);
      }),
      // 500: the rarest paths (a plan that delivers nothing, a list past the item
      // limit) come up about once in forty scenarios, so none is ever missed by chance
      { numRuns: 500 },
    );
    // the generator really reaches the new paths (a silent generator would prove nothing)
    expect(coverage.shared).toBeGreaterThan(0);
    expect(coverage.escalated).toBeGreaterThan(0);
    expect(coverage.quorumReleased).toBeGreaterThan(0);
    expect(coverage.budgetRefused).toBeGreaterThan(0);
    expect(coverage.budgetAborted).toBeGreaterThan(0);
    expect(coverage.expanded).toBeGreaterThan(0);
    expect(coverage.noItems).toBeGreaterThan(0);
    expect(coverage.tooManyItems).toBeGreaterThan(0);
    expect(coverage.collected).toBeGreaterThan(0);
    expect(coverage.collectedFailed).toBeGreaterThan(0);
    expect(coverage.childBoundHeld).toBeGreaterThan(0);
    expect(coverage.taintInherited).toBeGreaterThan(0);
    expect(coverage.stopped).toBeGreaterThan(0);
    expect(coverage.continuedFailure).toBeGreaterThan(0);
    expect(coverage.reopened).toBeGreaterThan(0);
    expect(coverage.capacityHeld).toBeGreaterThan(0);
    expect(coverage.waitingOnTime).toBeGreaterThan(0);
    // every outcome is reached by plans that settled on their own
    expect(coverage.endedCompleted).toBeGreaterThan(0);
    expect(coverage.endedPartial).toBeGreaterThan(0);
    expect(coverage.endedFailedNoResult).toBeGreaterThan(0);
  }, 60_000);

  it("an abort_plan failure cascades exactly", () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.nat(), (scenario, choice) => {
        const plan = reconcile({
          plan: buildPlan(scenario),
          event: { type: "plan-created" },
          now: 0,
          random: () => 0.5,
          newRunId: (() => {
            let n = 0;
            return () => `r${++n}`;
          })(),
          capacity: buildCapacity(scenario),
        }).plan;
        const live = plan.steps.filter((step) => step.status === "in_progress");
        // the victim's run is its own: on a shared run every sharer applies its own policy (unit-tested)
        const alone = live.filter((step) => live.filter((other) => other.liveRunId === step.liveRunId).length === 1);
        if (alone.length === 0) return;
        const victim = alone[choice % alone.length];
        const frozen = deepFreeze({
          ...plan,
          steps: plan.steps.map((step) => (step === victim ? { ...step, onFailure: "abort_plan" as const } : step)),
        });
        const result = reconcile({
          plan: frozen,
          event: {
            type: "run-finished",
            stepIndex: victim.index,
            runId: victim.liveRunId!,
            outcome: { kind: "failed", transient: false, reason: "fatal" },
          },
          now: 1,
          random: () => 0.5,
          newRunId: () => "unused",
          capacity: buildCapacity(scenario),
        });
        expect(result.plan.status).toBe("failed");
        for (const step of result.plan.steps) {
          const previous = frozen.steps.find((candidate) => candidate.index === step.index)!;
          if (step.index === victim.index) expect(step.status).toBe("failed");
          else if (!isTerminalStep(previous.status))
            expect(step).toMatchObject({ status: "skipped", failureReason: `plan aborted: step ${victim.index} failed` });
          else expect(step).toEqual(previous);
        }
        const otherRuns = new Set(live.filter((step) => step !== victim).map((step) => step.liveRunId));
        expect(result.commands.filter((command) => command.type === "cancel-run")).toHaveLength(otherRuns.size);
        expect(result.commands.at(-1)).toEqual({ type: "plan-ended", status: "failed" });
      }),
      { numRuns: 200 },
    );
  }, 30_000);
});
