/**
 * Member controls answer with what the engine did: a control that cannot apply is
 * a `conflict` naming why (and leaves the plan as it was), a plan or step that does
 * not exist is `not_found`, and only members of the plan's conversation may use them.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../access/actor.ts";
import { rawStep as step, executorFixtureForFile } from "./testing/file-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";

let member: Actor;

const fixture = executorFixtureForFile({ script: directiveScript });

beforeAll(() => {
  member = { id: fixture.userId, role: "member" };
});

async function stepStatuses(planId: string) {
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId }, orderBy: { index: "asc" } });
  return steps.map((s) => s.status);
}

describe("plan controls on the embedded database", () => {
  it("refuses what cannot apply with the reason, applies what can, and says what it did", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Controls", steps: [step(1, "researcher", "sleep=20000 slow"), step(2, "analyst", "after {{step_1.output_summary}}")] },
    });
    const { plans } = fixture.app;
    await expect(plans.retryStep({ actor: member, planId: plan.id, stepIndex: 1 })).rejects.toMatchObject({
      code: "conflict",
      message: "step 1 is in progress; only a failed step can be retried",
    });
    await expect(plans.skipStep({ actor: member, planId: plan.id, stepIndex: 1, reason: "x" })).rejects.toMatchObject({
      code: "conflict",
      message: "step 1 is in progress; only a failed or pending step can be skipped",
    });
    await expect(plans.retryStep({ actor: member, planId: plan.id, stepIndex: 7 })).rejects.toMatchObject({
      code: "not_found",
      message: "step 7 was not found in this plan",
    });
    await expect(plans.retryStep({ actor: member, planId: randomUUID(), stepIndex: 1 })).rejects.toMatchObject({ code: "not_found" });
    expect(await stepStatuses(plan.id)).toEqual(["in_progress", "pending"]);
    // the refusal is in the plan's execution log too
    const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id, stepIndex: 1 }, select: { message: true } });
    expect(log.map((entry) => entry.message)).toContain("step 1 is in progress; only a failed step can be retried");

    // a pending step can be skipped: the answer is the step as it now is
    const skipped = await plans.skipStep({ actor: member, planId: plan.id, stepIndex: 2, reason: "not needed" });
    expect(skipped).toMatchObject({ planId: plan.id, status: "running", step: { index: 2, status: "skipped" } });

    const cancelled = await plans.cancelPlan({ actor: member, planId: plan.id, reason: "done here" });
    expect(cancelled).toMatchObject({ status: "cancelled", step: null });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");
    await expect(plans.cancelPlan({ actor: member, planId: plan.id, reason: "again" })).rejects.toMatchObject({
      code: "conflict",
      message: "the plan is cancelled; cancel no longer applies",
    });
    // after the end a retry reopens the plan: step 1 was skipped by the cancel, and runs again
    expect(await plans.retryStep({ actor: member, planId: plan.id, stepIndex: 1 })).toMatchObject({
      status: "running",
      step: { index: 1, status: "in_progress" },
    });
    await plans.cancelPlan({ actor: member, planId: plan.id, reason: "done here" });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");
  });

  it("refuses a finished plan's controls and keeps it as it was", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Quick", steps: [step(1, "researcher", "quick")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    for (const control of [
      () => fixture.app.plans.retryStep({ actor: member, planId: plan.id, stepIndex: 1 }),
      () => fixture.app.plans.skipStep({ actor: member, planId: plan.id, stepIndex: 1, reason: "x" }),
      () => fixture.app.plans.cancelPlan({ actor: member, planId: plan.id, reason: "x" }),
    ]) {
      await expect(control()).rejects.toMatchObject({
        code: "conflict",
        message: expect.stringMatching(/^(the plan is completed; |step 1 is done; only a failed or skipped step can be retried)/),
      });
    }
    expect(await stepStatuses(plan.id)).toEqual(["done"]);
    const row = await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: plan.id } });
    expect(row.status).toBe("completed");
  });

  it("lets only members of the plan's conversation control it, post or answer", async () => {
    const stranger = await fixture.db.prisma.user.create({
      data: { id: randomUUID(), name: "Eve", email: `eve-${randomUUID()}@example.com` },
    });
    const outsider: Actor = { id: stranger.id, role: "admin" }; // a workspace admin who is not a member
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Private", steps: [step(1, "user", "Which database?")] },
    });
    expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
    await expect(fixture.app.plans.cancelPlan({ actor: outsider, planId: plan.id, reason: "x" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      fixture.app.messages.postMessage({
        conversationId: fixture.conversationId,
        author: { kind: "user", userId: stranger.id },
        body: "hi",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
    await expect(fixture.app.forms.answerForm({ formId: form.id, userId: stranger.id, values: { answer: "x" } })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(fixture.services.getPlan({ actor: outsider, planId: plan.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(fixture.services.getSnapshot({ actor: null, conversationId: fixture.conversationId })).rejects.toMatchObject({
      code: "unauthenticated",
    });
    expect((await fixture.services.getPlan({ actor: member, planId: plan.id })).status).toBe("paused");
    expect(await fixture.db.prisma.form.findUniqueOrThrow({ where: { id: form.id }, select: { status: true } })).toEqual({
      status: "open",
    });
    await fixture.app.plans.cancelPlan({ actor: member, planId: plan.id, reason: "tidy up" });
  });
});
