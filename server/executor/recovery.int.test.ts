/**
 * Stop a step vs stop a plan, and recovering an ended plan (issue 44 items 6 and 7):
 * Stop beside a step's run stops that step only while the others keep running, and what
 * it had written stays in the chat marked stopped; Stop plan cancels the plan; a retry
 * after the plan ended reopens it; a re-run is a new plan linked to the ended one. Each
 * leaves its audit row.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../access/actor.ts";
import { rawStep as step, executorFixtureForFile } from "./testing/file-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { sleep } from "./testing/scripted-runner.ts";

let member: Actor;

const fixture = executorFixtureForFile({
  script: async (request, call) => {
    // "partial": writes half an answer, then works until stopped
    if (request.input.includes("partial")) {
      call.sink.textDelta("Half of the findings: oak is ");
      await sleep(30_000, request.signal);
      return { kind: "failed", transient: false, reason: "aborted", usage: { tokensIn: 0, tokensOut: 0, cost: 0 } };
    }
    return directiveScript(request, call);
  },
});

beforeAll(() => {
  member = { id: fixture.userId, role: "member" };
});

async function statuses(planId: string) {
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId }, orderBy: { index: "asc" } });
  return steps.map((s) => s.status);
}

async function liveRun(planId: string, stepIndex: number) {
  for (let i = 0; i < 400; i++) {
    const run = await fixture.db.prisma.run.findFirst({ where: { planId, status: "running", step: { index: stepIndex } } });
    if (run) return run;
    await sleep(10);
  }
  throw new Error(`step ${stepIndex} of plan ${planId} never ran`);
}

async function auditActions(planId: string) {
  const rows = await fixture.db.prisma.auditEvent.findMany({ where: { targetId: planId }, orderBy: { at: "asc" } });
  return rows.map((row) => row.action);
}

describe("stop a step, stop a plan", () => {
  it("Stop beside a step's run stops that step only; the others finish and its partial text stays, marked stopped", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Woods",
        steps: [
          step(1, "researcher", "partial oak", { wait_for: [], on_failure: "continue" }),
          step(2, "analyst", "sleep=300 pine", { wait_for: [] }),
          step(3, "analyst", "compare {{step_1.output_summary}}", { wait_for: [1, 2] }),
        ],
      },
    });
    const run = await liveRun(plan.id, 1);
    const stopped = await fixture.app.plans.stopRun({
      actor: member,
      conversationId: fixture.conversationId,
      runId: run.id,
      byName: "Ada",
    });
    expect(stopped).toEqual({ stopped: "step", planId: plan.id, stepIndex: 1 });
    // the plan goes on: step 2 ends on its own, step 3 runs without step 1's output
    expect(await fixture.waitForPlan(plan.id)).toBe("partial");
    expect(await statuses(plan.id)).toEqual(["failed", "done", "done"]);
    const first = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 1 } });
    expect(first.failureReason).toBe("stopped by Ada");
    expect((await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("cancelled");
    await fixture.executor.idle();
    // besides the commander's mention that handed the step over, the one message of the run is its half answer
    const posted = await fixture.db.prisma.message.findMany({ where: { runId: run.id, kind: { not: "dispatch" } } });
    expect(posted.map((message) => [message.kind, message.body])).toEqual([["stopped", "Half of the findings: oak is "]]);
    expect(await auditActions(plan.id)).toEqual(["plan.step_stopped"]);
    // a stopped step's run is over: stopping it again says so
    await expect(
      fixture.app.plans.stopRun({ actor: member, conversationId: fixture.conversationId, runId: run.id, byName: "Ada" }),
    ).rejects.toMatchObject({ code: "conflict", message: "the run has already ended (cancelled)" });
  });

  it("Stop plan cancels every step; stopping a step that is not running is refused with the reason", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Slow pair", steps: [step(1, "researcher", "sleep=20000 a"), step(2, "analyst", "b")] },
    });
    await liveRun(plan.id, 1);
    await expect(fixture.app.plans.stopStep({ actor: member, planId: plan.id, stepIndex: 2, byName: "Ada" })).rejects.toMatchObject({
      code: "conflict",
      message: "step 2 is pending; only a step with a live run can be stopped",
    });
    await fixture.app.plans.cancelPlan({ actor: member, planId: plan.id, reason: "stopped by Ada" });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");
    expect(await statuses(plan.id)).toEqual(["skipped", "skipped"]);
    // stopping a whole plan is recorded like stopping a step
    expect(await auditActions(plan.id)).toEqual(["plan.stopped"]);
  });
});

describe("after a plan ended", () => {
  it("Retry step on a failed step reopens the plan: the step and those skipped because of it run again", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Flaky",
        steps: [step(1, "researcher", "fail=fatal fail_attempts=1 look", { on_failure: "abort_plan" }), step(2, "analyst", "use it")],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    expect(await statuses(plan.id)).toEqual(["failed", "skipped"]);
    const reopened = await fixture.app.plans.retryStep({ actor: member, planId: plan.id, stepIndex: 1 });
    expect(reopened).toMatchObject({ status: "running", step: { index: 1, status: "in_progress" } });
    expect(
      fixture.published.some(
        (event) => event.type === "plan-updated" && event.payload.planId === plan.id && event.payload.status === "running",
      ),
    ).toBe(true);
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    expect(await statuses(plan.id)).toEqual(["done", "done"]);
    const row = await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: plan.id } });
    expect(row.endedAt).not.toBeNull();
    expect(await auditActions(plan.id)).toEqual(["plan.reopened"]);
    // two closing messages: the plan ended twice
    const closings = await fixture.db.prisma.message.count({ where: { planId: plan.id, kind: "outcome" } });
    expect(closings).toBeGreaterThanOrEqual(2);
  });

  it("Re-run makes a new plan from the ended one's spec, linked to it; a running plan cannot be re-run", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Once more", steps: [step(1, "researcher", "sleep=20000 look"), step(2, "analyst", "use {{step_1.output_summary}}")] },
    });
    await liveRun(plan.id, 1);
    await expect(fixture.app.plans.rerunPlan({ actor: member, planId: plan.id, byName: "Ada" })).rejects.toMatchObject({
      code: "conflict",
      message: "the plan is running; only an ended plan can be re-run (stop it first)",
    });
    await fixture.app.plans.cancelPlan({ actor: member, planId: plan.id, reason: "later" });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");

    const rerun = await fixture.app.plans.rerunPlan({ actor: member, planId: plan.id, byName: "Ada" });
    expect(rerun).toMatchObject({ title: "Once more", rerunOfId: plan.id, status: "running" });
    expect(rerun.steps.map((s) => [s.index, s.input, s.waitFor])).toEqual([
      [1, "sleep=20000 look", []],
      [2, "use {{step_1.output_summary}}", [1]],
    ]);
    expect((await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: rerun.id } })).rerunOfId).toBe(plan.id);
    // the ended plan stays as it ended
    expect(await statuses(plan.id)).toEqual(["skipped", "skipped"]);
    expect(await auditActions(plan.id)).toEqual(["plan.stopped", "plan.rerun"]);
    const created = fixture.published.find((event) => event.type === "plan-created" && event.payload.plan.id === rerun.id);
    expect(created?.type === "plan-created" && created.payload.plan.rerunOfId).toBe(plan.id);
    await fixture.app.plans.cancelPlan({ actor: member, planId: rerun.id, reason: "tidy up" });
  });
});
