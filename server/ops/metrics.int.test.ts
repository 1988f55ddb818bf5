import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { bearerMatches, createMetrics } from "./metrics.ts";

let fixture: ExecutorFixture;
beforeAll(async () => {
  fixture = await createExecutorFixture();
});
afterAll(() => fixture.close());

it("reports steps, runs and plans by status and each agent's pool from the database", async () => {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "m",
      steps: [
        { index: 1, title: "a", assignee: "researcher", input: "x" },
        { index: 2, title: "b", assignee: "analyst", input: "y" },
      ],
    },
  });
  await fixture.waitForPlan(plan.id);
  const text = await createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 3 }).metrics();
  expect(text).toMatch(/^baton_steps\{status="done"\} 2$/m);
  expect(text).toMatch(/^baton_runs\{status="succeeded"\} 2$/m);
  expect(text).toMatch(/^baton_plans\{status="completed"\} 1$/m);
  expect(text).toMatch(/^baton_agent_pool_limit\{agent="researcher"\} 4$/m);
  expect(text).toMatch(/^baton_agent_pool_live_runs\{agent="researcher"\} 0$/m);
  expect(text).toMatch(/^baton_live_sockets 3$/m);
  expect(text).toMatch(/^baton_process_nodejs_eventloop_lag_p99_seconds /m);
});

it("accepts only a configured bearer token", () => {
  expect(bearerMatches("Bearer s3cret-token-0123456789", ["s3cret-token-0123456789", undefined])).toBe(true);
  expect(bearerMatches("Bearer s3cret-token-012345678", ["s3cret-token-0123456789"])).toBe(false);
  expect(bearerMatches(undefined, ["s3cret-token-0123456789"])).toBe(false);
  expect(bearerMatches("Bearer x", [undefined])).toBe(false);
});
