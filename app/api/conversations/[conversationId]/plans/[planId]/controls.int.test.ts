/**
 * Hostile requests against a member's plan controls (route.ts beside this file): people
 * outside the conversation, step indexes no plan has, and the same control twice at once.
 * Each answer is checked against what was stored: a refused control changes nothing, and
 * a control sent twice at once does its work once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserRequest, signUpInvited, type TestAccount } from "@/server/auth/testing/accounts.ts";
import { createRouteHarness, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import { postgresAvailable } from "@/server/db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "@/server/executor/testing/executor-fixture.ts";
import { directiveScript } from "@/server/executor/testing/directive-script.ts";
import * as planRoute from "./route.ts";

let harness: RouteHarness;
let outsider: TestAccount;

beforeAll(async () => {
  harness = await createRouteHarness();
  outsider = await signUpInvited(harness.fixture.db.prisma, { id: harness.adminId }, "Mallory");
});
afterAll(() => harness?.close());

const prisma = () => harness.fixture.db.prisma;

/**
 * A plan of the fixture's conversation whose one step waits a minute, submitted as the
 * API would and stopped by its owner: an ended plan whose retry or re-run stays running
 * for as long as the test looks at it.
 */
async function stoppedPlan(title: string) {
  const plan = await harness.fixture.app.plans.submitPlan({
    conversationId: harness.fixture.conversationId,
    raw: { title, steps: [{ index: 1, title: "Wait", assignee: "researcher", input: "sleep=60000" }] },
    userId: harness.adminId,
  });
  await harness.fixture.app.plans.cancelPlan({ actor: { id: harness.adminId, role: "admin" }, planId: plan.id, reason: "set up" });
  await harness.fixture.waitForPlan(plan.id);
  return plan.id;
}

/** Stops what a test left running, so the next one starts from a quiet conversation. */
async function stopAll() {
  const live = await prisma().plan.findMany({ where: { status: { in: ["running", "paused"] } }, select: { id: true } });
  for (const { id } of live) {
    await harness.fixture.app.plans.cancelPlan({ actor: { id: harness.adminId, role: "admin" }, planId: id, reason: "tidy" });
  }
}

function control(planId: string, body: unknown, options: { cookie?: string; conversationId?: string } = {}) {
  const conversationId = options.conversationId ?? harness.fixture.conversationId;
  return planRoute.POST(
    browserRequest(`/api/conversations/${conversationId}/plans/${planId}`, { cookie: options.cookie ?? harness.cookie, body }),
    { params: Promise.resolve({ conversationId, planId }) },
  );
}

async function outcome(response: Promise<Response>) {
  const settled = await response;
  const body = (await settled.json()) as { error?: { message?: string } };
  return { status: settled.status, message: body.error?.message };
}

it("a person outside the conversation gets the same 404 for every control, and nothing changes", async () => {
  const planId = await stoppedPlan("Outsider's target");
  const before = await prisma().plan.findUniqueOrThrow({ where: { id: planId }, select: { status: true, version: true } });
  for (const body of [{ action: "cancel" }, { action: "rerun" }, { action: "retry", stepIndex: 1 }, { action: "skip", stepIndex: 1 }]) {
    expect(await outcome(control(planId, body, { cookie: outsider.cookie }))).toEqual({ status: 404, message: "No such conversation." });
  }
  expect(await prisma().plan.findUniqueOrThrow({ where: { id: planId }, select: { status: true, version: true } })).toEqual(before);
  expect(await prisma().plan.count({ where: { rerunOfId: planId } })).toBe(0);
});

it("a step index the plan does not have is refused by name, and one it cannot hold is a 400", async () => {
  const planId = await stoppedPlan("Index probe");
  for (const action of ["retry", "skip", "stop"]) {
    for (const stepIndex of [0, -1, 1.5, 2 ** 31, 1e300, "1", null]) {
      expect((await outcome(control(planId, { action, stepIndex }))).status, `${action} ${String(stepIndex)}`).toBe(400);
    }
    const missing = await outcome(control(planId, { action, stepIndex: 99 }));
    expect(missing, action).toEqual({ status: 404, message: "step 99 was not found in this plan" });
  }
  expect((await prisma().plan.findUniqueOrThrow({ where: { id: planId } })).status).toBe("cancelled");
});

it("two retries of an ended plan's failed step at once reopen it once: one run, one 409", async () => {
  const planId = await stoppedPlan("Retried twice");
  const runsBefore = await prisma().run.count({ where: { planId } });
  const answers = await Promise.all([1, 2].map(() => outcome(control(planId, { action: "retry", stepIndex: 1 }))));
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  expect(await prisma().run.count({ where: { planId } })).toBe(runsBefore + 1);
  await stopAll();
});

it("two re-runs of an ended plan at once make one new plan; the other is told it is running", async () => {
  const planId = await stoppedPlan("Re-run twice");
  const answers = await Promise.all([1, 2].map(() => outcome(control(planId, { action: "rerun" }))));
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  expect(answers.find((answer) => answer.status === 409)?.message).toMatch(/re-run of this plan is still running/);
  expect(await prisma().plan.count({ where: { rerunOfId: planId } })).toBe(1);
  await stopAll();
  // once that re-run has ended, re-running again is a person's choice, not a double click
  expect((await outcome(control(planId, { action: "rerun" }))).status).toBe(200);
  expect(await prisma().plan.count({ where: { rerunOfId: planId } })).toBe(2);
  await stopAll();
});

it("a running plan cannot be re-run, and a cancel reason the database cannot store is a 400", async () => {
  const running = await harness.fixture.app.plans.submitPlan({
    conversationId: harness.fixture.conversationId,
    raw: { title: "Long", steps: [{ index: 1, title: "Wait", assignee: "researcher", input: "sleep=60000" }] },
    userId: harness.adminId,
  });
  expect(await outcome(control(running.id, { action: "rerun" }))).toEqual({
    status: 409,
    message: "the plan is running; only an ended plan can be re-run (stop it first)",
  });
  expect((await outcome(control(running.id, { action: "cancel", reason: "a\u0000b" }))).status).toBe(400);
  expect((await outcome(control(running.id, { action: "cancel", reason: "\ud800" }))).status).toBe(400);
  expect((await outcome(control(running.id, { action: "cancel", reason: "x".repeat(501) }))).status).toBe(400);
  expect((await prisma().plan.findUniqueOrThrow({ where: { id: running.id } })).status).toBe("running");
  expect((await outcome(control(running.id, { action: "cancel" }))).status).toBe(200);
  expect(await prisma().plan.count({ where: { rerunOfId: running.id } })).toBe(0);
});

// PGlite has one connection, so the race needs PostgreSQL's
describe.runIf(await postgresAvailable())("a control sent as the owner deletes the conversation", () => {
  let fixture: ExecutorFixture;
  beforeAll(async () => {
    fixture = await createExecutorFixture({ kind: "postgres", script: directiveScript });
  });
  afterAll(() => fixture?.close());

  it("either the delete is refused or the control is not found: never a database error", async () => {
    const actor = { id: fixture.userId, role: "admin" as const };
    for (const control of ["retry", "rerun"] as const) {
      const { id } = await fixture.services.createConversation({ title: control, agentHandles: ["researcher"], userId: fixture.userId });
      const raw = { title: "Wait", steps: [{ index: 1, title: "Wait", assignee: "researcher", input: "sleep=60000" }] };
      const plan = await fixture.app.plans.submitPlan({ conversationId: id, raw, userId: fixture.userId });
      await fixture.app.plans.cancelPlan({ actor, planId: plan.id, reason: "set up" });
      await fixture.waitForPlan(plan.id);
      const [removed, controlled] = await Promise.allSettled([
        fixture.app.conversations.remove({ actor, conversationId: id }),
        control === "retry"
          ? fixture.app.plans.retryStep({ actor, planId: plan.id, stepIndex: 1 })
          : fixture.app.plans.rerunPlan({ actor, planId: plan.id, byName: "Ada" }),
      ]);
      const code = (settled: PromiseSettledResult<unknown>) =>
        settled.status === "fulfilled" ? "ok" : ((settled.reason as { code?: string }).code ?? String(settled.reason));
      expect([code(removed), code(controlled)], control).toSatisfy(
        ([a, b]: string[]) => (a === "ok" && b === "not_found") || (a === "conflict" && b === "ok"),
      );
      const live = await fixture.db.prisma.plan.findMany({ where: { conversationId: id, status: "running" }, select: { id: true } });
      for (const { id: planId } of live) await fixture.app.plans.cancelPlan({ actor, planId, reason: "tidy" });
    }
  });
});
