/** plan_status on the database: a plan of the conversation only, each step's facts, the newest log entries. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../../executor/testing/executor-fixture.ts";
import { createPrismaPlanStatusReader } from "./plan-status-reader.ts";

let fixture: ExecutorFixture;
beforeAll(async () => {
  fixture = await createExecutorFixture();
});
afterAll(() => fixture?.close());

it("reads a plan's steps with status, attempts, summary and bounded log; another conversation's plan is not found", async () => {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "Look and tell",
      steps: [
        { index: 1, title: "Look", assignee: "researcher", input: "look around" },
        { index: 2, title: "Tell", assignee: "writer", input: "tell {{step_1.output_summary}}" },
      ],
    },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const reader = createPrismaPlanStatusReader(fixture.db.prisma);

  const newest = await reader.read({ conversationId: fixture.conversationId, logLimit: 2 });
  expect(newest).toMatchObject({ id: plan.id, title: "Look and tell", status: "completed" });
  expect(newest?.steps.map((step) => [step.index, step.status, step.attempts])).toEqual([
    [1, "done", 1],
    [2, "done", 1],
  ]);
  expect(newest?.steps[0].summary).toBe("done: look around");
  const full = await reader.read({ conversationId: fixture.conversationId, planId: plan.id, stepIndex: 1, logLimit: 100 });
  expect(full?.steps).toHaveLength(1);
  expect(full!.steps[0].log.length).toBeGreaterThan(2);
  // the newest two, oldest first
  expect(newest?.steps[0].log).toEqual(full!.steps[0].log.slice(-2));

  expect(await reader.read({ conversationId: "another-conversation", planId: plan.id, logLimit: 5 })).toBeNull();
});
