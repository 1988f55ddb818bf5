/**
 * Liveness does not hang on one process's memory: what a plan waits for is in the
 * database, and any executor acts on it. A retry whose timer never fires is started
 * by the sweep; runs queued by a web node (which never runs agents) are claimed by a
 * worker that starts later, and the pool is handed on oldest first.
 */
import { afterEach, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";

let fixture: ExecutorFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

it("retries a step whose retry timer was lost: the sweep reads retryAt from the database", async () => {
  const lostTimers = { now: () => Date.now(), setTimer: () => ({ cancel() {} }) };
  fixture = await createExecutorFixture({ script: directiveScript, clock: lostTimers, config: { sweepMs: 200 } });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "flaky", steps: [{ index: 1, title: "a", assignee: "researcher", input: "fail=transient fail_attempts=1" }] },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { attempt: "asc" } });
  expect(runs.map((run) => [run.attempt, run.status])).toEqual([
    [1, "failed"],
    [2, "succeeded"],
  ]);
});

it("runs plans a web node accepted on a worker that starts later, oldest queued first, within the pool", async () => {
  fixture = await createExecutorFixture({ script: directiveScript, config: { role: "web" } });
  await fixture.db.prisma.agent.updateMany({ where: { handle: "researcher" }, data: { concurrency: 2 } });
  const submit = (title: string) =>
    fixture!.executor.submitPlan({
      conversationId: fixture!.conversationId,
      raw: {
        title,
        max_parallel: 4,
        steps: [1, 2, 3, 4].map((index) => ({
          index,
          title: `${title}${index}`,
          assignee: "researcher",
          input: `sleep=30 ${title}${index}`,
          wait_for: [],
        })),
      },
    });
  const first = await submit("a");
  const second = await submit("b");
  await new Promise((resolve) => setTimeout(resolve, 300));
  // the web node queued eight runs and ran none
  expect(await fixture.db.prisma.run.count({ where: { status: "queued" } })).toBe(8);
  expect(fixture.runner.calls).toHaveLength(0);

  const worker = await fixture.addExecutor({ role: "worker" });
  expect(await fixture.waitForPlan(first.id)).toBe("completed");
  expect(await fixture.waitForPlan(second.id)).toBe("completed");
  const runs = await fixture.db.prisma.run.findMany({
    orderBy: { startedAt: "asc" },
    select: { planId: true, leaseOwner: true, startedAt: true, endedAt: true },
  });
  expect(new Set(runs.map((run) => run.leaseOwner))).toEqual(new Set([worker.context.instanceId]));
  // the older plan's runs were served first, and never more than two at once
  expect(runs.slice(0, 4).every((run) => run.planId === first.id)).toBe(true);
  const points = runs.flatMap((run) => [
    { at: run.startedAt!.getTime(), delta: 1 },
    { at: run.endedAt!.getTime(), delta: -1 },
  ]);
  points.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let live = 0;
  let peak = 0;
  for (const point of points) peak = Math.max(peak, (live += point.delta));
  expect(peak).toBe(2);
});
