/**
 * The admin plan read models mark a plan's totals estimated when any of its runs'
 * usage is (a run whose stream was cut), the planning call (a run with no step) included,
 * and leave a plan whose runs all reported usage unmarked.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { getPlanTimeline, listPlanHistory } from "./admin-plans.ts";
import { getUsage } from "./admin-usage.ts";

const admin = { id: "admin", role: "admin" as const };
let db: TestDatabase;
let cut: { planId: string; stepId: string };
let whole: { planId: string };

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
  const plan = (title: string) => db.prisma.plan.create({ data: { conversationId: conversation.id, title, maxParallel: 1, request: "r" } });
  const step = (planId: string, index: number) =>
    db.prisma.planStep.create({ data: { planId, index, title: `s${index}`, assignee: "writer", input: "x", maxRetries: 0 } });
  const run = (
    planId: string,
    stepId: string | null,
    usage: { tokensIn: number; tokensOut: number; cost: number; usageEstimated: boolean; cacheReadTokens?: number },
  ) =>
    db.prisma.run.create({
      data: { conversationId: conversation.id, planId, stepId, kind: "step", input: "x", status: "succeeded", ...usage },
    });

  const cutPlan = await plan("cut");
  const [first, second] = [await step(cutPlan.id, 1), await step(cutPlan.id, 2)];
  await run(cutPlan.id, null, { tokensIn: 10, tokensOut: 5, cost: 0.001, usageEstimated: false });
  await run(cutPlan.id, first.id, { tokensIn: 100, tokensOut: 20, cost: 0.01, usageEstimated: false, cacheReadTokens: 60 });
  await run(cutPlan.id, second.id, { tokensIn: 200, tokensOut: 40, cost: 0.02, usageEstimated: true });
  cut = { planId: cutPlan.id, stepId: second.id };

  const wholePlan = await plan("whole");
  const only = await step(wholePlan.id, 1);
  await run(wholePlan.id, only.id, { tokensIn: 7, tokensOut: 3, cost: 0.5, usageEstimated: false });
  whole = { planId: wholePlan.id };
});

afterAll(async () => {
  await db?.close();
});

it("the plan history marks a plan estimated if any of its runs' usage is", async () => {
  const { plans } = await listPlanHistory(db.prisma, { actor: admin, filter: {} });
  const byId = new Map(plans.map((plan) => [plan.id, plan]));
  expect(byId.get(cut.planId)).toMatchObject({ tokens: 375, usageEstimated: true });
  expect(byId.get(cut.planId)?.cost).toBeCloseTo(0.031);
  expect(byId.get(whole.planId)).toMatchObject({ tokens: 10, cost: 0.5, usageEstimated: false });
});

it("the timeline's plan total counts the planning call and carries the mark; each step's only its own runs'", async () => {
  const timeline = await getPlanTimeline(db.prisma, { actor: admin, planId: cut.planId });
  expect(timeline).toMatchObject({ tokens: 375, usageEstimated: true });
  expect(timeline?.steps.map((step) => [step.index, step.tokens, step.usageEstimated])).toEqual([
    [1, 120, false],
    [2, 240, true],
  ]);
  const untouched = await getPlanTimeline(db.prisma, { actor: admin, planId: whole.planId });
  expect(untouched).toMatchObject({ tokens: 10, usageEstimated: false });
  expect(untouched?.steps.every((step) => !step.usageEstimated)).toBe(true);
});

it("is for admins only", async () => {
  await expect(listPlanHistory(db.prisma, { actor: { id: "m", role: "member" }, filter: {} })).rejects.toThrow();
});

it("Admin → Usage marks estimated totals and counts what was read from cache", async () => {
  const usage = await getUsage(db.prisma, { actor: admin, days: 1 });
  expect(usage.totals).toMatchObject({ runs: 4, tokens: 385, cacheReadTokens: 60, estimated: true });
  expect(usage.totals.cost).toBeCloseTo(0.531, 6);
  const byDay = usage.byDay.at(-1);
  expect(byDay).toMatchObject({ runs: 4, estimated: true, cacheReadTokens: 60 });
});

it("Admin → Usage counts the runs of its window only, by the day they ran", async () => {
  const { conversationId } = await db.prisma.run.findFirstOrThrow({ select: { conversationId: true } });
  const threeDaysAgo = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
  const old = await db.prisma.run.create({
    data: {
      conversationId,
      kind: "chat",
      input: "x",
      status: "succeeded",
      tokensIn: 1_000,
      tokensOut: 0,
      cost: 1,
      createdAt: threeDaysAgo,
    },
  });
  try {
    expect((await getUsage(db.prisma, { actor: admin, days: 1 })).totals).toMatchObject({ runs: 4, tokens: 385 });
    const week = await getUsage(db.prisma, { actor: admin, days: 7 });
    expect(week.totals).toMatchObject({ runs: 5, tokens: 1_385 });
    expect(week.byDay[0]).toMatchObject({ key: threeDaysAgo.toISOString().slice(0, 10), runs: 1, tokensIn: 1_000 });
  } finally {
    await db.prisma.run.delete({ where: { id: old.id } });
  }
});
