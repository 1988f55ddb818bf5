/** Reconcile: form answers and the commander's decisions on a failed step. */
import { describe, expect, it } from "vitest";
import { live, makePlan, makeSpec, NOW, run, stepOf } from "./testing/fixtures.ts";

describe("reconcile: forms", () => {
  it("a user step is done with the answer", () => {
    const plan = makePlan({ status: "paused", steps: [{ index: 1, assignee: "user", status: "blocked", attempts: 1 }, { index: 2 }] });
    const result = run(plan, { type: "form-answered", stepIndex: 1, summary: "**Tone**: formal" });
    expect(stepOf(result, 1)).toMatchObject({ status: "done", outputSummary: "**Tone**: formal", endedAt: NOW });
    expect(result.plan.status).toBe("running");
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });

  it("an agent step resumes its session as a new run, attempts unchanged", () => {
    const plan = makePlan({ status: "paused", steps: [{ index: 1, status: "blocked", attempts: 2, liveRunId: "run-1" }] });
    const result = run(plan, { type: "form-answered", stepIndex: 1, summary: "yes" });
    expect(stepOf(result, 1)).toMatchObject({ status: "in_progress", attempts: 2, liveRunId: "new-run-1" });
    expect(result.commands).toEqual([
      { type: "resume", stepIndex: 1, answer: "yes", attempt: 2, runId: "new-run-1", previousRunId: "run-1" },
    ]);
    expect(result.plan.status).toBe("running");
  });

  it("a secret answer goes to the resumed run only; the log and a user step's summary get the masked one", () => {
    const forAgent = { answer: "**Token**: tok-9", secrets: ["tok-9"] };
    const agentPlan = makePlan({ status: "paused", steps: [{ index: 1, status: "blocked", attempts: 1, liveRunId: "run-1" }] });
    const resumed = run(agentPlan, { type: "form-answered", stepIndex: 1, summary: "**Token**: ••••", forAgent });
    expect(resumed.commands).toEqual([
      {
        type: "resume",
        stepIndex: 1,
        answer: "**Token**: tok-9",
        secrets: ["tok-9"],
        attempt: 1,
        runId: "new-run-1",
        previousRunId: "run-1",
      },
    ]);
    expect(JSON.stringify(resumed.plan)).not.toContain("tok-9");
    expect(JSON.stringify(resumed.log)).not.toContain("tok-9");
    const userPlan = makePlan({ status: "paused", steps: [{ index: 1, assignee: "user", status: "blocked", attempts: 1 }] });
    const done = run(userPlan, { type: "form-answered", stepIndex: 1, summary: "**Token**: ••••", forAgent });
    expect(stepOf(done, 1).outputSummary).toBe("**Token**: ••••");
    expect(JSON.stringify(done)).not.toContain("tok-9");
  });

  it("an answer for a step that is not blocked is ignored", () => {
    const plan = makePlan({ steps: [live(1)] });
    expect(run(plan, { type: "form-answered", stepIndex: 1, summary: "x" })).toMatchObject({ commands: [], changedSteps: [] });
  });

  it("the plan stays paused while another step is blocked", () => {
    const plan = makePlan({
      status: "paused",
      steps: [
        { index: 1, waitFor: [], status: "blocked", assignee: "user" },
        { index: 2, waitFor: [], status: "blocked", assignee: "user" },
        { index: 3, waitFor: [] },
      ],
    });
    const result = run(plan, { type: "form-answered", stepIndex: 1, summary: "a" });
    expect(result.plan.status).toBe("paused");
    expect(result.commands).toEqual([]);
  });
});

describe("reconcile: commander decisions", () => {
  const failed = { index: 1, status: "failed", decisionPending: true, failureReason: "boom", attempts: 1, transientFailures: 2 } as const;

  it("retry with new input and assignee", () => {
    const plan = makePlan({ steps: [failed, { index: 2 }] });
    const result = run(plan, {
      type: "commander-decision",
      stepIndex: 1,
      decision: { kind: "retry", input: "try again", assignee: "editor" },
    });
    expect(stepOf(result, 1)).toMatchObject({
      status: "in_progress",
      input: "try again",
      assignee: "editor",
      decisionPending: false,
      transientFailures: 0,
      failureReason: null,
      attempts: 2,
    });
    expect(result.commands).toEqual([
      // a decided retry is a new hand-off, posted like the first
      expect.objectContaining({ type: "dispatch", stepIndex: 1, assignee: "editor", renderedInput: "try again", automaticRetry: false }),
    ]);
  });

  it("skip lets downstream proceed", () => {
    const plan = makePlan({ steps: [failed, { index: 2 }] });
    const result = run(plan, { type: "commander-decision", stepIndex: 1, decision: { kind: "skip", reason: "not needed" } });
    // who decided, why, and the failure it followed: the closing message reports all of it
    expect(stepOf(result, 1)).toMatchObject({
      status: "skipped",
      decisionPending: false,
      failureReason: "the commander skipped it: not needed (it had failed: boom)",
    });
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 2 })]);
  });

  it("abort cascades like abort_plan", () => {
    const plan = makePlan({ steps: [failed, live(2, { waitFor: [] }), { index: 3 }] });
    const result = run(plan, { type: "commander-decision", stepIndex: 1, decision: { kind: "abort", reason: "hopeless" } });
    expect(stepOf(result, 1)).toMatchObject({ status: "failed", decisionPending: false, failureReason: "boom" });
    expect(stepOf(result, 2)).toMatchObject({ status: "skipped", failureReason: "plan aborted by the commander: hopeless" });
    expect(stepOf(result, 3).status).toBe("skipped");
    expect(result.plan.status).toBe("failed");
    expect(result.commands).toEqual([
      { type: "cancel-run", runId: "run-2" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("append adds pending steps and skips the failed step so its downstream proceeds", () => {
    const plan = makePlan({ steps: [failed, { index: 2, waitFor: [1] }] });
    const result = run(plan, {
      type: "commander-decision",
      stepIndex: 1,
      decision: {
        kind: "append",
        steps: [
          makeSpec({ index: 3, title: "fix", assignee: "editor", input: "fix it", waitFor: [], onFailure: "continue", maxRetries: 1 }),
        ],
      },
    });
    expect(stepOf(result, 1)).toMatchObject({ status: "skipped", decisionPending: false, failureReason: "boom" });
    expect(stepOf(result, 3)).toMatchObject({ status: "in_progress", assignee: "editor", attempts: 1 });
    expect(result.commands.map((command) => command.type === "dispatch" && command.stepIndex)).toEqual([2, 3]);
    expect(result.changedSteps).toEqual([1, 2, 3]);
  });

  it("append with a broken step list is refused and the decision stays pending", () => {
    const plan = makePlan({ steps: [failed] });
    const result = run(plan, {
      type: "commander-decision",
      stepIndex: 1,
      decision: {
        kind: "append",
        steps: [makeSpec({ index: 5, title: "x", assignee: "a", input: "i", waitFor: [], onFailure: "continue", maxRetries: 0 })],
      },
    });
    expect(result).toMatchObject({ plan, commands: [], changedSteps: [] });
  });

  it("a decision without a pending decision is ignored", () => {
    const plan = makePlan({ steps: [live(1)] });
    expect(run(plan, { type: "commander-decision", stepIndex: 1, decision: { kind: "skip" } })).toMatchObject({ plan, commands: [] });
  });
});
