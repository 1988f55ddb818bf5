/**
 * Admin plan history: searched by title on the server, a page at a time with no plan on
 * two pages, filtered to one conversation; a plan's final answer and who answered its forms.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { listPlanHistory } from "./admin-plans.ts";
import { getPlanAnswers } from "./admin-plan-answers.ts";

const admin = { id: "admin", role: "admin" as const };
let db: TestDatabase;
let launch: string;
let answered: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  launch = (await db.prisma.conversation.create({ data: { title: "launch" } })).id;
  const other = (await db.prisma.conversation.create({ data: { title: "other" } })).id;
  const titles = ["Release notes for 2.0", "Fix the RELEASE build", "Translate the site", "Budget review"];
  for (const [i, title] of titles.entries()) {
    await db.prisma.plan.create({
      data: { conversationId: i % 2 ? other : launch, title, maxParallel: 1, request: "r", createdAt: new Date(Date.UTC(2026, 0, 1 + i)) },
    });
  }
  await db.prisma.user.create({ data: { id: "ana", name: "Ana", email: "ana@example.test" } });
  const plan = await db.prisma.plan.create({ data: { conversationId: launch, title: "Answered", maxParallel: 1, request: "r" } });
  answered = plan.id;
  const step = (index: number, more: { waitFor?: number[]; status?: "done" | "blocked"; outputSummary?: string }) =>
    db.prisma.planStep.create({
      data: { planId: plan.id, index, title: `s${index}`, assignee: index === 1 ? "user" : "writer", input: "x", maxRetries: 0, ...more },
    });
  const asked = await step(1, { status: "done" });
  const final = await step(2, { waitFor: [1], status: "done", outputSummary: "short" });
  await db.prisma.message.create({
    data: { conversationId: launch, authorKind: "agent", kind: "result", body: "The **whole** answer", planId: plan.id, stepId: final.id },
  });
  const form = await db.prisma.form.create({
    data: { conversationId: launch, planId: plan.id, stepId: asked.id, title: "Which colour?", fields: [], status: "answered" },
  });
  await db.prisma.formAnswer.create({ data: { formId: form.id, userId: "ana", values: { colour: "red" } } });
  await db.prisma.form.create({ data: { conversationId: launch, planId: plan.id, title: "Still open?", fields: [] } });
});

afterAll(async () => {
  await db?.close();
});

it("finds plans by words in the title, whatever their case", async () => {
  const { plans } = await listPlanHistory(db.prisma, { actor: admin, filter: { title: " release " } });
  expect(plans.map((plan) => plan.title).sort()).toEqual(["Fix the RELEASE build", "Release notes for 2.0"]);
  expect((await listPlanHistory(db.prisma, { actor: admin, filter: { title: "nothing like it" } })).plans).toEqual([]);
});

it("pages newest first, each plan once, and says when there is no more", async () => {
  const seen: string[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    const page = await listPlanHistory(db.prisma, { actor: admin, filter: {}, after, take: 2 });
    seen.push(...page.plans.map((plan) => plan.title));
    after = page.next ?? undefined;
    pages += 1;
  } while (after && pages < 10);
  expect(pages).toBe(3);
  expect(seen).toEqual(["Answered", "Budget review", "Translate the site", "Fix the RELEASE build", "Release notes for 2.0"]);
});

it("filters to one conversation, for the link from its header", async () => {
  const { plans } = await listPlanHistory(db.prisma, { actor: admin, filter: { conversationId: launch } });
  expect(plans.map((plan) => plan.title)).toEqual(["Answered", "Translate the site", "Release notes for 2.0"]);
  expect(plans.every((plan) => plan.conversation.id === launch)).toBe(true);
});

it("shows the final answer as posted and who answered each form, and when", async () => {
  const answers = await getPlanAnswers(db.prisma, { actor: admin, planId: answered });
  expect(answers.finalAnswer).toEqual([{ stepIndex: 2, title: "s2", body: "The **whole** answer" }]);
  expect(answers.forms).toMatchObject([
    { title: "Which colour?", stepIndex: 1, status: "answered", answeredBy: { name: "Ana", email: "ana@example.test" } },
    { title: "Still open?", stepIndex: null, status: "open", answeredBy: null, answeredAt: null },
  ]);
  expect(Date.parse(answers.forms[0].answeredAt!)).not.toBeNaN();
  await expect(getPlanAnswers(db.prisma, { actor: { id: "m", role: "member" }, planId: answered })).rejects.toThrow();
});
