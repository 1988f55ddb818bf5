/**
 * A run whose result the database refuses ends failed (issue 42): before, the unit rolled
 * back and the run stayed `running` for good, holding its slot, and was re-run (and
 * stuck again) after a restart.
 */
import { describe, expect, it } from "vitest";
import { executorFixtureForFile, rawStep as step } from "./testing/file-fixture.ts";
import { ok, type Script } from "./testing/scripted-runner.ts";

/** a usage no `Int` column holds: PostgreSQL refuses the run's write (22003), which no repair of text avoids */
const UNSTORABLE_USAGE = { tokensIn: 3_000_000_000, tokensOut: 1, cost: 0 };

const script: Script = (request) =>
  request.input.includes("poison") ? ok("answer", { usage: UNSTORABLE_USAGE }) : ok(`done: ${request.input.slice(0, 20)}`);

const fixture = executorFixtureForFile({ script });

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** the commander's run answering a message, once it exists */
async function runFor(messageId: string): Promise<string> {
  let runId: string | undefined;
  await until(async () => {
    runId = (await fixture.db.prisma.run.findFirst({ where: { triggerMessageId: messageId }, select: { id: true } }))?.id;
    return runId !== undefined;
  });
  return runId!;
}

const statusOf = async (runId: string) => (await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).status;

describe("a refused write", () => {
  it("ends a chat run failed with the reason, and the commander answers the next message", async () => {
    const runId = await runFor((await fixture.say("poison please")).id);
    await until(async () => !["queued", "running"].includes(await statusOf(runId)));
    const run = await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/could not be stored.*22003/);
    const nextId = await runFor((await fixture.say("hello again")).id);
    await until(async () => (await statusOf(nextId)) === "succeeded");
  });

  it("fails a plan's step with the reason, the plan ends, and a restart runs nothing again", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Poisoned", steps: [step(1, "researcher", "poison", { on_failure: "abort_plan", max_retries: 0 })] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id } });
    expect(steps[0].failureReason).toMatch(/could not be stored/);
    const before = fixture.runner.calls.length;
    await fixture.restart();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await fixture.db.prisma.run.count({ where: { status: "running" } })).toBe(0);
    expect(fixture.runner.calls.length).toBe(before);
  });
});
