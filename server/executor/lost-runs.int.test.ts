/**
 * A dead process's runs of one conversation are declared lost in ONE unit: they wait for
 * the conversation's lock once, not once each (issue 42: the last of a dead worker's runs
 * moved seconds after the first, each in a unit of its own queued on that lock). And a
 * takeover is counted for each run declared lost, not for each one looked at.
 */
import { afterEach, expect, it } from "vitest";
import { Registry } from "prom-client";
import { registerInstruments } from "../observability/instruments.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { NO_USAGE, ok, sleep } from "./testing/scripted-runner.ts";

let fixture: ExecutorFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function takeoversCounted(): Promise<number> {
  const registry = new Registry();
  registerInstruments(registry);
  return Number(/^baton_lease_takeovers_total (\d+)$/m.exec(await registry.metrics())?.[1]);
}

it("declares a dead process's runs of one conversation lost in one unit, and every step runs again once", async () => {
  // first attempts last until their process stops; the runs after the takeover end at once
  fixture = await createExecutorFixture({
    script: async (request, { attempt }) => {
      if (attempt === 1) await sleep(60_000, request.signal);
      return ok(`done: ${request.input}`);
    },
  });
  await fixture.db.prisma.agent.updateMany({ data: { concurrency: 10 } });
  const submit = (title: string, stepCount: number) =>
    fixture!.executor.submitPlan({
      conversationId: fixture!.conversationId,
      raw: {
        title,
        max_parallel: stepCount,
        steps: Array.from({ length: stepCount }, (_, i) => ({
          index: i + 1,
          title: `${title}${i + 1}`,
          assignee: ["researcher", "analyst", "writer"][i % 3],
          input: `${title}${i + 1}`,
          wait_for: [],
        })),
      },
    });
  // two plans of one conversation, one with several runs at once
  const plans = [await submit("a", 3), await submit("b", 2)];
  const running = () => fixture!.db.prisma.run.count({ where: { status: "running" } });
  for (let polls = 0; (await running()) < 5 && polls < 1_000; polls++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await running()).toBe(5);
  const before = await takeoversCounted();

  // the executor stops without recording its runs (as a killed process), and the next one takes them over
  await fixture.restart();
  for (const plan of plans) expect(await fixture.waitForPlan(plan.id)).toBe("completed");

  const lost = await fixture.db.prisma.run.findMany({ where: { status: "lost" }, select: { stepId: true, endedAt: true } });
  expect(lost).toHaveLength(5);
  // one unit, one moment: runs declared in units of their own would each have their own endedAt
  expect(new Set(lost.map((run) => run.endedAt!.getTime())).size).toBe(1);
  expect(await takeoversCounted()).toBe(before + 5);
  // every step lost once ran once more, and only once
  const succeeded = await fixture.db.prisma.run.findMany({
    where: { status: "succeeded", stepId: { not: null } },
    select: { stepId: true },
  });
  expect(succeeded.map((run) => run.stepId).sort()).toEqual(lost.map((run) => run.stepId).sort());
  expect(fixture.runner.maxLivePerStep).toBe(1);
});

it("a decision lost again after it was started again aborts its plan instead of leaving the step waiting", async () => {
  // the step fails for good; every decision about it lasts until its process stops
  fixture = await createExecutorFixture({
    script: async (request) => {
      if (request.purpose.kind !== "commander-decision") return { kind: "failed", transient: false, reason: "broken", usage: NO_USAGE };
      await sleep(60_000, request.signal);
      return ok("too late");
    },
  });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "lost decision", steps: [{ index: 1, title: "work", assignee: "analyst", input: "work", max_retries: 0 }] },
  });
  const decisions = () => fixture!.db.prisma.run.findMany({ where: { planId: plan.id, kind: "decision" }, orderBy: { attempt: "asc" } });
  const runningDecisions = async () => (await decisions()).filter((run) => run.status === "running").length;
  for (const attempt of [1, 2]) {
    for (let polls = 0; (await runningDecisions()) === 0 && polls < 1_000; polls++) await sleep(10);
    expect((await decisions()).map((run) => run.attempt)).toHaveLength(attempt);
    await fixture.restart();
  }
  // lost twice: no third run, and the plan ends instead of waiting for ever
  expect(await fixture.waitForPlan(plan.id)).toBe("failed");
  expect((await decisions()).map((run) => [run.attempt, run.status])).toEqual([
    [1, "lost"],
    [2, "lost"],
  ]);
  const step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
  expect(step.decisionPending).toBe(false);
});
