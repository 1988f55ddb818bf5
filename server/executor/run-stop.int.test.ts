/**
 * Runs end cleanly: a member's Stop ends a direct mention's run (and only for members),
 * a plan's cancel sends the final state of the runs it stops, the commander's
 * planning call counts toward its plan's totals, and a cut stream's estimated usage
 * is stored marked as such. (The commander's reply retries: chat-retry.int.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Actor } from "../access/actor.ts";
import type { RunDTO } from "../protocol/dto.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { ok, sleep } from "./testing/scripted-runner.ts";

let fixture: ExecutorFixture;
let member: Actor;

beforeAll(async () => {
  fixture = await createExecutorFixture({
    script: async (request) => {
      if (request.input.includes("slow")) {
        await sleep(30_000, request.signal);
        return {
          kind: "failed",
          transient: false,
          reason: "aborted: the run was cancelled",
          usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
        };
      }
      if (request.input.includes("cut short")) {
        // a stream cut mid-way and retried: the runtime estimated what it could not count
        return ok("Answered after a cut stream.", { usage: { tokensIn: 120, tokensOut: 30, cost: 0.002, estimated: true } });
      }
      if (request.purpose.kind === "commander-chat" && request.input.includes("plan it")) {
        return ok("Here is the plan.", {
          plan: { title: "Costed", steps: [{ index: 1, title: "Look", assignee: "researcher", input: "look around" }] },
          usage: { tokensIn: 1_000, tokensOut: 200, cost: 0.5 },
        });
      }
      return ok(`done: ${request.input.slice(0, 40)}`);
    },
  });
  member = { id: fixture.userId, role: "member" };
});
afterAll(() => fixture?.close());

const runUpdates = (runId: string) =>
  fixture.published.flatMap((event) => (event.type === "run-updated" && event.payload.run.id === runId ? [event.payload.run] : []));

async function liveRunOf(messageId: string) {
  for (let i = 0; i < 400; i++) {
    const run = await fixture.db.prisma.run.findFirst({ where: { triggerMessageId: messageId, status: "running" } });
    if (run) return run;
    await sleep(10);
  }
  throw new Error("no live run");
}

it("Stop ends a direct mention's run: its final state goes out and nothing is posted for it", async () => {
  const message = await fixture.say("@researcher slow please");
  const run = await liveRunOf(message.id);

  const outsider: Actor = { id: randomUUID(), role: "member" };
  await expect(
    fixture.app.plans.stopRun({ actor: outsider, conversationId: fixture.conversationId, runId: run.id, byName: "Eve" }),
  ).rejects.toMatchObject({
    code: expect.stringMatching(/not_found|forbidden/),
  });
  await expect(
    fixture.app.plans.stopRun({ actor: member, conversationId: fixture.conversationId, runId: randomUUID(), byName: "Ada" }),
  ).rejects.toMatchObject({ code: "not_found" });

  expect(await fixture.app.plans.stopRun({ actor: member, conversationId: fixture.conversationId, runId: run.id, byName: "Ada" })).toEqual({
    stopped: "run",
    planId: null,
    stepIndex: null,
  });
  await fixture.executor.idle();
  expect(runUpdates(run.id).at(-1)).toMatchObject<Partial<RunDTO>>({ status: "cancelled", agentHandle: "researcher" });
  expect((await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("cancelled");
  expect(await fixture.db.prisma.message.count({ where: { runId: run.id } })).toBe(0);
  await expect(
    fixture.app.plans.stopRun({ actor: member, conversationId: fixture.conversationId, runId: run.id, byName: "Ada" }),
  ).rejects.toMatchObject({ code: "conflict" });
});

it("stopping a plan's step sends the final state of the run it stops; Stop on a step's run stops that step", async () => {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "Slow", steps: [{ index: 1, title: "Wait", assignee: "researcher", input: "slow work", on_failure: "abort_plan" }] },
  });
  let run = null;
  for (let i = 0; i < 400 && !run; i++) {
    run = await fixture.db.prisma.run.findFirst({ where: { planId: plan.id, status: "running" } });
    if (!run) await sleep(10);
  }
  if (!run) throw new Error("the step never started");
  expect(await fixture.app.plans.stopRun({ actor: member, conversationId: fixture.conversationId, runId: run.id, byName: "Ada" })).toEqual({
    stopped: "step",
    planId: plan.id,
    stepIndex: 1,
  });
  // its on_failure is abort_plan: the stopped step fails the plan
  expect(await fixture.waitForPlan(plan.id)).toBe("failed");
  expect(runUpdates(run.id).at(-1)).toMatchObject({ status: "cancelled", planId: plan.id, stepIndex: 1 });
});

it("the commander's planning call counts toward the plan's tokens and cost", async () => {
  await fixture.say("@commander plan it");
  await fixture.executor.idle();
  const plan = await fixture.db.prisma.plan.findFirstOrThrow({ where: { title: "Costed" } });
  await fixture.waitForPlan(plan.id);
  const read = await fixture.services.getPlan({ actor: member, planId: plan.id });
  // planning 1000 in / 200 out / 0.5, the step 10 in / 5 out / 0
  expect(read.usage).toEqual({ tokensIn: 1_010, tokensOut: 205, cost: 0.5, cacheReadTokens: 0, cacheWriteTokens: 0, estimated: false });
  const planning = await fixture.db.prisma.run.findFirstOrThrow({ where: { planId: plan.id, kind: "chat" } });
  expect(runUpdates(planning.id).at(-1)).toMatchObject({ planId: plan.id, status: "succeeded", tokensIn: 1_000 });
});

it("usage of a cut stream is stored marked as estimated, and sent so to the browser", async () => {
  const message = await fixture.say("@researcher cut short please");
  await fixture.executor.idle();
  const run = await fixture.db.prisma.run.findFirstOrThrow({ where: { triggerMessageId: message.id } });
  expect(run).toMatchObject({ status: "succeeded", tokensIn: 120, tokensOut: 30, usageEstimated: true });
  expect(runUpdates(run.id).at(-1)).toMatchObject({ status: "succeeded", usageEstimated: true });
  // a reload reads the mark from the rows: the snapshot sums ended runs rather than sending them
  const snapshot = await fixture.services.getSnapshot({ actor: member, conversationId: fixture.conversationId });
  expect(snapshot.runs.some((candidate) => candidate.id === run.id)).toBe(false);
  expect(snapshot.endedUsage.total.estimated).toBe(true);
  // a plan whose usage was reported in full is not marked: planning 1000 in / 200 out / 0.5, the step 10 in / 5 out
  const costed = await fixture.db.prisma.plan.findFirstOrThrow({ where: { title: "Costed" } });
  expect(snapshot.endedUsage.byPlan[costed.id]).toMatchObject({ tokens: 1_215, cost: 0.5, estimated: false });
});
