/**
 * The per-provider circuit breaker end to end: real AI SDK providers against the
 * loopback fake model server during an outage (500s and 429s), run by the executor.
 * With the breaker, steps wait for the provider instead of spending their retries:
 * far fewer provider calls, no retry budget spent, no error message posted.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import type { AgentRunner } from "../executor/ports.ts";
import { ProviderCircuits } from "./circuit-breaker.ts";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { testRuntime } from "./testing/agent-fixture.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = "openai:gpt-test";
const OUTAGE_MS = 2_500;
const STEPS = 4;

let server: FakeModelServer;
let fixture: ExecutorFixture;
let current: AgentRunner;

beforeAll(async () => {
  server = await startFakeModelServer();
  fixture = await createExecutorFixture({ createRunner: () => ({ run: (request, sink) => current.run(request, sink) }) });
  await fixture.db.prisma.agent.updateMany({ where: { role: "sub_agent" }, data: { model: MODEL } });
  fixture.executor.agentsChanged();
});

afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

function runnerWith(circuits?: ProviderCircuits): AgentRunner {
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL };
  return testRuntime({ env, deps: { circuits } }).runner;
}

/** Runs a fan-out of STEPS sub-agent steps through an outage of OUTAGE_MS; returns what the provider saw. */
async function throughOutage(title: string) {
  server.reset();
  server.outage([
    { kind: "error", status: 500, message: "internal error", errorType: "server_error" },
    { kind: "error", status: 429, message: "rate limited", errorType: "rate_limit_error" },
  ]);
  server.whenEmpty({ kind: "text", text: "The provider is back; here is the answer." });
  const handles = ["researcher", "analyst", "writer", "researcher"];
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title,
      steps: handles.slice(0, STEPS).map((handle, i) => ({
        index: i + 1,
        title: `Part ${i + 1}`,
        assignee: handle,
        input: `part ${i + 1}`,
        wait_for: [],
        max_retries: 3,
      })),
    },
  });
  // the outage lasts OUTAGE_MS from the first call (the first plan also pays the providers' cold start)
  while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const outageStarted = Date.now();
  const duringOutage = await new Promise<number>((resolve) =>
    setTimeout(() => {
      const failed = server.requests.length;
      server.outage(null);
      resolve(failed);
    }, OUTAGE_MS),
  );
  const status = await fixture.waitForPlan(plan.id, undefined, 60_000);
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  const errors = await fixture.db.prisma.message.count({ where: { planId: plan.id, kind: "error" } });
  return { status, steps, errors, failedCalls: duringOutage, calls: server.requests.length, outageStarted };
}

it("an outage costs far fewer provider calls with the breaker, spends no retry budget and posts no error", async () => {
  current = runnerWith(undefined);
  const without = await throughOutage("Without a breaker");

  const circuits = new ProviderCircuits({ policy: { failureThreshold: 3, coolDownMs: 400, maxCoolDownMs: 1_600 } });
  current = runnerWith(circuits);
  const withBreaker = await throughOutage("With a breaker");

  console.log(
    `provider calls during a ${OUTAGE_MS} ms outage, ${STEPS} parallel steps: without breaker ${without.failedCalls} (total ${without.calls}), with breaker ${withBreaker.failedCalls} (total ${withBreaker.calls})`,
  );

  // without the breaker runs burn their in-run retries (5 calls each), then steps their own retries
  expect(without.steps.some((step) => step.transientFailures > 0)).toBe(true);
  // retried attempts post nothing; only a step that failed for good would
  expect(without.errors).toBe(without.steps.filter((step) => step.status !== "done").length);

  // with it: the failures that opened it, the calls already in flight then (one per run), and
  // one probe per cool-down (every failed probe opens it again)
  const view = circuits.snapshot().find((circuit) => circuit.provider === "openai")!;
  expect(view.state).toBe("closed");
  expect(view.opened).toBeGreaterThanOrEqual(1);
  expect(withBreaker.failedCalls).toBeLessThanOrEqual(3 + STEPS + view.opened);
  expect(withBreaker.failedCalls).toBeLessThan(without.failedCalls);
  expect(withBreaker.status).toBe("completed");
  // waiting for the provider spent no step's retry budget, and nobody saw a red message
  expect(withBreaker.steps.map((step) => step.transientFailures)).toEqual([0, 0, 0, 0]);
  expect(withBreaker.errors).toBe(0);
  // the wait is in the step's execution log
  const waits = await fixture.db.prisma.stepEvent.count({ where: { plan: { title: "With a breaker" }, phase: "provider-wait" } });
  expect(waits).toBeGreaterThan(0);
}, 90_000);
