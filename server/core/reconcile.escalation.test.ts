/**
 * Escalation in the core (reconcile-context.ts handleFailure): a failure a stronger
 * model could fix, reported with a cause by the executor, sends the step's next
 * attempt at once to the escalation model, once per step, without spending a retry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reconcile } from "./reconcile.ts";
import { EMPTY_CAPACITY, NOW, deepFreeze, live, makePlan, runIds } from "./testing/fixtures.ts";
import type { EscalationCause, PlanEvent, PlanState, ReconcileResult, RunOutcome } from "./types.ts";
import { ESCALATION_CAUSES } from "./types.ts";

function apply(plan: PlanState, event: PlanEvent, newRunId = runIds("next")): ReconcileResult {
  return reconcile({ plan: deepFreeze(plan), event, now: NOW, random: () => 0.5, newRunId, capacity: EMPTY_CAPACITY });
}

const fixable = (cause: EscalationCause): RunOutcome => ({
  kind: "failed",
  transient: false,
  reason: "the model sent malformed tool-call arguments 2 times",
  escalation: cause,
  usage: { tokens: 10, cost: 0 },
});

const finished = (runId: string, outcome: RunOutcome): PlanEvent => ({ type: "run-finished", stepIndex: 1, runId, outcome });

describe("escalation", () => {
  it("dispatches the next attempt at once, marked as the escalated one, without spending a retry", () => {
    const plan = makePlan({ steps: [live(1, { waitFor: [], input: "do it", maxRetries: 0 })] });
    const result = apply(plan, finished("run-1", fixable("malformed-tool-calls")));
    expect(result.commands).toContainEqual({
      type: "dispatch",
      stepIndex: 1,
      assignee: "writer",
      renderedInput: "do it",
      attempt: 2,
      runId: "next-1",
      // nobody decided this attempt: it goes out under the step's first hand-off
      automaticRetry: true,
    });
    expect(result.plan.steps[0]).toMatchObject({
      status: "in_progress",
      attempts: 2,
      transientFailures: 0,
      escalatedAttempt: 2,
      escalationCause: "malformed-tool-calls",
      liveRunId: "next-1",
    });
  });

  it("escalates once per step: a second fixable failure applies on_failure", () => {
    const plan = makePlan({ steps: [live(1, { waitFor: [], onFailure: "continue" })] });
    const escalated = apply(plan, finished("run-1", fixable("refused"))).plan;
    const again = apply(escalated, finished("next-1", fixable("refused")));
    expect(again.plan.steps[0]).toMatchObject({ status: "failed", escalatedAttempt: 2, escalationCause: "refused" });
    expect(again.commands.some((command) => command.type === "dispatch")).toBe(false);
  });

  it("a failure without a cause (no escalation model, or not fixable) is an ordinary failure", () => {
    const plan = makePlan({ steps: [live(1, { waitFor: [], onFailure: "continue" })] });
    const { escalation: _dropped, ...plain } = fixable("plan-rejected") as Extract<RunOutcome, { kind: "failed" }>;
    const result = apply(plan, finished("run-1", plain));
    expect(result.plan.steps[0]).toMatchObject({ status: "failed", escalatedAttempt: null });
  });

  it("property: however runs fail, a step is escalated at most once and ends after at most two fixable failures", () => {
    const outcome = fc.oneof(
      fc.constantFrom(...ESCALATION_CAUSES).map(fixable),
      fc.constant<RunOutcome>({ kind: "ok", summary: "done", files: [] }),
      fc.constant<RunOutcome>({ kind: "failed", transient: false, reason: "fatal" }),
    );
    fc.assert(
      fc.property(fc.array(outcome, { minLength: 1, maxLength: 6 }), (outcomes) => {
        let plan = makePlan({ steps: [live(1, { waitFor: [], onFailure: "continue", maxRetries: 0 })] });
        const newRunId = runIds("next");
        let escalations = 0;
        for (const next of outcomes) {
          const step = plan.steps[0];
          if (step.liveRunId === null) break;
          const before = step.escalatedAttempt;
          plan = apply(plan, finished(step.liveRunId, next), newRunId).plan;
          if (before === null && plan.steps[0].escalatedAttempt !== null) escalations += 1;
        }
        expect(escalations).toBeLessThanOrEqual(1);
        const step = plan.steps[0];
        expect(step.attempts).toBeLessThanOrEqual(2);
        if (step.escalatedAttempt !== null) expect(step.escalatedAttempt).toBe(2);
      }),
    );
  });
});
