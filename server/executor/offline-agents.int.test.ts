/**
 * The executor with the real agent runtime and the offline model (no network): the
 * commander plans from a chat message, and a step that asks a person resumes its
 * own agent session from the database after the process restarted.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { offlineAgentRunner } from "./testing/offline-runtime.ts";

let fixture: ExecutorFixture;

beforeAll(async () => {
  fixture = await createExecutorFixture({
    createRunner: offlineAgentRunner,
  });
});

afterAll(async () => {
  await fixture?.close();
});

it("turns an unaddressed request naming several items into a parallel plan with a synthesis", async () => {
  await fixture.app.messages.postMessage({
    conversationId: fixture.conversationId,
    author: { kind: "user", userId: fixture.userId },
    body: "Please compare Postgres, MySQL and SQLite for a small team",
  });
  await fixture.executor.idle();
  const plan = await fixture.db.prisma.plan.findFirstOrThrow({ where: { conversationId: fixture.conversationId } });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  expect(steps.map((s) => s.assignee)).toEqual(["researcher", "analyst", "writer", "commander"]);
  expect(steps[3].waitFor).toEqual([1, 2, 3]);
  expect(steps.every((s) => s.status === "done" && s.outputSummary)).toBe(true);
  const messages = await fixture.db.prisma.message.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
  expect(messages.filter((m) => m.kind === "dispatch")).toHaveLength(3);
  // the synthesis, then the commander's closing message
  const [synthesis, closing] = messages.slice(-2);
  expect(synthesis.kind).toBe("result");
  expect(synthesis.body).toMatch(/Postgres/);
  expect(synthesis.body).toMatch(/SQLite/);
  expect(closing).toMatchObject({ kind: "outcome", authorAgentId: synthesis.authorAgentId });
  expect(closing.body).toContain("completed: 4 of 4 steps done");
  // tool calls of the runs are in the execution log
  const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id, stepIndex: 1 } });
  expect(log.some((entry) => entry.phase === "dispatch")).toBe(true);
  expect(log.some((entry) => /finish/.test(entry.message))).toBe(true);
});

it("resumes a blocked step's own session with the answer, after a restart", async () => {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "Ask then write",
      steps: [
        { index: 1, title: "Find the owner", assignee: "researcher", input: "@offline block=1\nFind who owns the billing service" },
        { index: 2, title: "Write it up", assignee: "writer", input: "Write up: {{step_1.output_summary}}" },
      ],
    },
  });
  expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
  const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
  const blocked = await fixture.db.prisma.run.findFirstOrThrow({ where: { planId: plan.id, status: "blocked" } });
  expect(blocked.session).not.toBeNull();

  await fixture.restart();
  const field = (form.fields as { name: string }[])[0].name;
  await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { [field]: "Team Falcon" } });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");

  const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
  const resumed = runs.find((run) => run.resumesRunId === blocked.id);
  expect(resumed?.status).toBe("succeeded");
  const [first, second] = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  expect(first.outputSummary).toContain("Team Falcon");
  expect(second.renderedInput).toContain("Team Falcon");
});

it("joins a request sent twice in a row to the plan the first one started instead of running it twice", async () => {
  const body = "Compare alpha and beta for the release\n@offline sleep=300";
  const post = () =>
    fixture.app.messages.postMessage({ conversationId: fixture.conversationId, author: { kind: "user", userId: fixture.userId }, body });
  await post();
  await post();
  await fixture.executor.idle();
  const plans = await fixture.db.prisma.plan.findMany({ where: { conversationId: fixture.conversationId, request: body } });
  expect(plans).toHaveLength(1);
  expect(await fixture.waitForPlan(plans[0].id)).toBe("completed");
  const joined = await fixture.db.prisma.message.findMany({
    where: { planId: plans[0].id, body: { contains: "already being worked on" } },
  });
  expect(joined).toHaveLength(1);
  // the second planning call is billed to the plan it joined
  expect(await fixture.db.prisma.run.count({ where: { planId: plans[0].id, kind: "chat" } })).toBe(2);
});
