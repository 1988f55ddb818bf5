/**
 * Hedged stragglers through the executor (issue 45): once an agent has enough history,
 * a step whose run goes past the p95 gets a twin on the agent's hedgeModel; the first
 * to finish is the step's result and the other is cancelled as the loser, with what
 * it spent on its row. The scripted model is slow on the primary model only.
 */
import { describe, expect, it } from "vitest";
import { rawStep as step, executorFixtureForFile } from "./testing/file-fixture.ts";
import { ok, sleep, type Script } from "./testing/scripted-runner.ts";
import { MIN_SAMPLES } from "./hedging.ts";

const ALTERNATE = "offline-alternate";
const SLOW_MS = 20_000;

/**
 * `slow` inputs take SLOW_MS on the agent's own model, `crawl` ones on both models for
 * the step's first two runs (then as `slow`); everything else takes 15 ms. Usage grows
 * with the time spent. A slow run streams a draft first.
 */
const script: Script = async (request, call) => {
  const started = performance.now();
  const crawling = request.input.includes("crawl") && call.attempt <= 2;
  const slow = crawling || (/slow|crawl/.test(request.input) && request.agent.model !== ALTERNATE);
  // a straggler has written something before it loses: it must not be posted as stopped
  if (slow) call.sink.textDelta("a draft the race overtook");
  await sleep(slow ? SLOW_MS : 15, request.signal);
  const spent = Math.round(performance.now() - started);
  return ok(`${request.agent.model} answered`, { usage: { tokensIn: 100 + spent, tokensOut: 10, cost: 0.001 } });
};

const fixture = executorFixtureForFile({ script });

async function warmUp(handle: string): Promise<void> {
  const steps = Array.from({ length: MIN_SAMPLES + 2 }, (_, i) => ({ ...step(i + 1, handle, `quick item ${i + 1}`), wait_for: [] }));
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "Warm-up", max_parallel: 8, steps },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
}

describe("hedging", () => {
  it("races a straggler on the alternate model: the twin wins, the primary is cancelled and billed", async () => {
    await fixture.db.prisma.agent.update({ where: { handle: "researcher" }, data: { hedgeModel: ALTERNATE } });
    fixture.executor.agentsChanged();
    await warmUp("researcher");

    const started = Date.now();
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Straggler", steps: [step(1, "researcher", "slow work")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    expect(Date.now() - started).toBeLessThan(SLOW_MS / 2);

    const stored = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 1 } });
    expect(stored).toMatchObject({ status: "done", outputSummary: `${ALTERNATE} answered`, hedgeModel: ALTERNATE, hedgeRunId: null });

    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((run) => [run.model, run.modelReason, run.status])).toEqual([
      ["offline", "agent", "cancelled"],
      [ALTERNATE, "hedge", "succeeded"],
    ]);
    // the loser's spending reaches its row once it has stopped (after the plan's end)
    await expect.poll(async () => (await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: runs[0].id } })).cost).toBe(0.001);
    const loser = await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: runs[0].id } });
    expect(loser.error).toBe("cancelled: lost the hedge");
    // a loser was not stopped by anyone: its draft is not the step's answer, nor posted as stopped
    expect(await fixture.db.prisma.message.count({ where: { runId: runs[0].id, kind: "stopped" } })).toBe(0);

    const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id, stepIndex: 1 }, orderBy: { id: "asc" } });
    expect(log.map((entry) => entry.message)).toEqual(
      expect.arrayContaining([`run ${runs[0].id} runs long: hedged on ${ALTERNATE}`, "cancelled: lost the hedge"]),
    );
    const hedgeEvent = fixture.published.find(
      (event) => event.type === "step-updated" && event.payload.planId === plan.id && event.payload.step.hedge?.racing === true,
    );
    expect(hedgeEvent).toBeDefined();
  });

  it("survives a restart mid-race: both runs are lost, the step is retried and hedged again", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Crash mid-race", steps: [step(1, "researcher", "crawl")] },
    });
    const live = () => fixture.db.prisma.run.count({ where: { planId: plan.id, status: "running" } });
    await expect.poll(live, { timeout: 15_000 }).toBe(2);
    await fixture.restart();
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");

    const stored = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 1 } });
    expect(stored).toMatchObject({ status: "done", attempts: 2, hedgeModel: ALTERNATE, outputSummary: `${ALTERNATE} answered` });
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((run) => [run.model, run.status])).toEqual([
      ["offline", "lost"],
      [ALTERNATE, "lost"],
      ["offline", "cancelled"],
      [ALTERNATE, "succeeded"],
    ]);
  });
});
