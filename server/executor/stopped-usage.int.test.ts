/**
 * A run stopped before its end is billed for what it spent (issue 45, "an exact bill").
 * Before, only a hedge loser cancelled by its own process had its usage stored: a run
 * cancelled with its plan, or running on another process than the one that cancelled
 * it, kept 0 tokens on its row while its provider had billed it.
 */
import { describe, expect, it } from "vitest";
import { createExecutorFixture } from "./testing/executor-fixture.ts";
import { rawStep as step } from "./testing/file-fixture.ts";
import { ok, sleep, type Script } from "./testing/scripted-runner.ts";

/** `slow` inputs work until aborted (up to 20 s); tokens grow with the time spent, as a streaming model's do */
const script: Script = async (request) => {
  const started = performance.now();
  await sleep(request.input.includes("slow") ? 20_000 : 10, request.signal);
  const spent = Math.round(performance.now() - started);
  return ok("answered", { usage: { tokensIn: 500 + spent, tokensOut: 7, cost: 0.002 } });
};

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each([
  { name: "on the process that cancelled it", webFirst: false },
  { name: "on another process than the one that cancelled it", webFirst: true },
])("a run cancelled while it worked, $name", ({ webFirst }) => {
  it("keeps what it spent on its row, where the bill reads it", async () => {
    // with webFirst the fixture's executor claims nothing: the run goes to a worker beside it
    const fixture = await createExecutorFixture({
      kind: webFirst ? "postgres" : "embedded",
      script,
      config: { leaseMs: 1_500, ...(webFirst ? { role: "web" as const } : {}) },
    });
    try {
      if (webFirst) await fixture.addExecutor({ role: "worker", leaseMs: 1_500 });
      const plan = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: { title: "Long", steps: [step(1, "researcher", "slow research")] },
      });
      const prisma = fixture.db.prisma;
      await until(
        () => prisma.run.findFirst({ where: { planId: plan.id }, select: { status: true } }),
        (run) => run?.status === "running",
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await fixture.app.plans.cancelPlan({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, reason: "enough" });
      const run = await until(
        () => prisma.run.findFirstOrThrow({ where: { planId: plan.id } }),
        (row) => row.tokensIn > 0,
      );
      expect(run.status).toBe("cancelled");
      expect(run.tokensIn).toBeGreaterThanOrEqual(700);
      expect(run.tokensOut).toBe(7);
      expect(run.cost).toBeCloseTo(0.002);
      // stored once: a later stop or result does not add it again
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await prisma.run.findFirstOrThrow({ where: { planId: plan.id } })).tokensIn).toBe(run.tokensIn);
    } finally {
      await fixture.close();
    }
  }, 40_000);
});
