/**
 * reconcile with agents that cannot take work (an admin disabled or deleted them): a
 * ready step assigned to one fails with the reason instead of being dispatched, under
 * its own on_failure; steps of other agents, live runs and steps not yet ready are left
 * alone.
 */
import { describe, expect, it } from "vitest";
import { done, live, makePlan, run, stepOf } from "./testing/fixtures.ts";

const writerDisabled = new Map([["writer", "@writer is disabled"]]);

describe("reconcile: unavailable agents", () => {
  it("fails a ready step of a disabled agent with the reason, by its on_failure", () => {
    const asked = run(
      makePlan({ steps: [done(1, { assignee: "researcher" }), { index: 2 }] }),
      { type: "tick" },
      { unavailable: writerDisabled },
    );
    expect(stepOf(asked, 2)).toMatchObject({
      status: "failed",
      failureReason: "@writer is disabled",
      decisionPending: true,
      liveRunId: null,
    });
    expect(asked.commands).toEqual([{ type: "ask-commander", stepIndex: 2, failureReason: "@writer is disabled" }]);

    const carriedOn = run(
      makePlan({ steps: [done(1, { assignee: "researcher" }), { index: 2, onFailure: "continue" }, { index: 3, assignee: "analyst" }] }),
      { type: "tick" },
      { unavailable: writerDisabled },
    );
    // a continue failure stays failed; downstream proceeds without its output, in the same reconcile
    expect(stepOf(carriedOn, 2)).toMatchObject({ status: "failed", failureReason: "@writer is disabled" });
    expect(carriedOn.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3, assignee: "analyst" })]);

    const aborted = run(
      makePlan({
        steps: [
          { index: 1, onFailure: "abort_plan" },
          { index: 2, assignee: "analyst", waitFor: [] },
        ],
      }),
      { type: "tick" },
      { unavailable: writerDisabled },
    );
    expect(aborted.plan.status).toBe("failed");
    expect(stepOf(aborted, 2).status).toBe("skipped");
    expect(aborted.commands.some((command) => command.type === "dispatch")).toBe(false);
  });

  it("is not a transient failure: no retry is scheduled", () => {
    const result = run(
      makePlan({ steps: [{ index: 1, onFailure: "continue", maxRetries: 3 }] }),
      { type: "tick" },
      { unavailable: writerDisabled },
    );
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", retryAt: null, transientFailures: 0 });
    expect(result.commands.some((command) => command.type === "schedule-tick")).toBe(false);
  });

  it("leaves running steps, steps not yet ready and other agents' steps alone", () => {
    const plan = makePlan({
      steps: [live(1), { index: 2, assignee: "researcher", waitFor: [] }, { index: 3, waitFor: [1] }],
    });
    const result = run(plan, { type: "tick" }, { unavailable: writerDisabled });
    expect(stepOf(result, 1)).toMatchObject({ status: "in_progress", liveRunId: "run-1" });
    expect(stepOf(result, 2).status).toBe("in_progress");
    expect(stepOf(result, 3).status).toBe("pending");
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });
});
