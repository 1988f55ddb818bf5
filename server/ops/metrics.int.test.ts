import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { directiveScript } from "../executor/testing/directive-script.ts";
import type { AgentRunner } from "../executor/ports.ts";
import { ProviderCircuits } from "../agents/circuit-breaker.ts";
import { startFakeModelServer, type FakeModelServer } from "../agents/testing/fake-model-server.ts";
import { testRuntime } from "../agents/testing/agent-fixture.ts";
import { bearerMatches, createMetrics } from "./metrics.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let fixture: ExecutorFixture;
let server: FakeModelServer;
/** the runtime the executor uses right now (the scripted runner, or a real provider's) */
let current: AgentRunner;
/**
 * Made once, before any test runs, as the server makes it at start. A registry made at
 * the top of the event-loop test, right after the first test's plan, sometimes saw no
 * tick of its just-started timers (neither ours nor the library's) for its first 170 ms,
 * so the blocked tick fell before the first and was not measured: 1 run in 3 to 8 failed
 * that way, and none of 10 with this one.
 */
let processMetrics: ReturnType<typeof createMetrics>;
beforeAll(async () => {
  server = await startFakeModelServer();
  fixture = await createExecutorFixture({ createRunner: () => ({ run: (request, sink) => current.run(request, sink) }) });
  current = fixture.runner;
  processMetrics = createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 0 });
});
afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

/** The value of one sample: `name` with exactly these labels (in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    const wanted = Object.entries(labels);
    if (wanted.length === Object.keys(found).length && wanted.every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

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
  expect(text).toMatch(/^baton_agent_pool_waiters\{agent="researcher"\} 0$/m);
  expect(text).toMatch(/^baton_live_sockets 3$/m);
  expect(text).toMatch(/^baton_process_nodejs_eventloop_lag_p99_seconds /m);
});

it("reports each connection pool of the process by name and state", async () => {
  const prisma = { totalCount: 4, idleCount: 3, waitingCount: 0 };
  const hotPath = { totalCount: 2, idleCount: 1, waitingCount: 1 };
  const text = await createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 0, pools: { prisma, hot_path: hotPath } }).metrics();
  expect(text).toMatch(/^baton_db_pool_connections\{pool="prisma",state="total"\} 4$/m);
  expect(text).toMatch(/^baton_db_pool_connections\{pool="prisma",state="idle"\} 3$/m);
  expect(text).toMatch(/^baton_db_pool_connections\{pool="hot_path",state="total"\} 2$/m);
  expect(text).toMatch(/^baton_db_pool_connections\{pool="hot_path",state="waiting"\} 1$/m);
  // the embedded database has no pools: no series at all
  expect(await createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 0, pools: { prisma: undefined } }).metrics()).not.toMatch(
    /baton_db_pool_connections/,
  );
});

it("reports how late the event loop ran, without the sampling interval", async () => {
  await processMetrics.metrics(); // the window starts now
  await new Promise((resolve) => setTimeout(resolve, 50));
  const blockedUntil = performance.now() + 80;
  while (performance.now() < blockedUntil); // the loop runs nothing else for 80 ms
  await new Promise((resolve) => setTimeout(resolve, 50));
  const text = await processMetrics.metrics();
  const delay = (stat: string) => sample(text, "baton_event_loop_delay_seconds", { stat })!;
  // the blocked tick came at least 70 ms late (80 ms, less up to one 10 ms interval)
  expect(delay("max")).toBeGreaterThanOrEqual(0.07);
  // the library's figure is the tick's whole interval: the same tick, plus the interval
  expect(sample(text, "baton_process_nodejs_eventloop_lag_max_seconds")).toBeGreaterThan(delay("max"));
  for (const stat of ["p50", "p90", "p99", "mean"]) expect(delay(stat)).toBeGreaterThanOrEqual(0);
  expect(delay("p50")).toBeLessThanOrEqual(delay("max"));
});

it("counts queue waits, run durations and retries where runs start and end", async () => {
  fixture.runner.setScript(directiveScript);
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "retry",
      steps: [
        { index: 1, title: "flaky", assignee: "writer", input: "sleep=30 fail=transient fail_attempts=1", max_retries: 2 },
        { index: 2, title: "after", assignee: "writer", input: "sleep=30 {{step_1.output_summary}}", wait_for: [1] },
      ],
    },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const text = await createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 0 }).metrics();
  const writer = { agent: "writer" };
  // three runs: the flaky step's failed attempt, its retry, and the step after it
  expect(sample(text, "baton_run_queue_wait_seconds_count", writer)).toBe(3);
  expect(sample(text, "baton_run_queue_wait_seconds_bucket", { ...writer, le: "+Inf" })).toBe(3);
  expect(sample(text, "baton_run_queue_wait_seconds_sum", writer)).toBeGreaterThanOrEqual(0);
  expect(sample(text, "baton_run_duration_seconds_count", { ...writer, outcome: "failed" })).toBe(1);
  expect(sample(text, "baton_run_duration_seconds_count", { ...writer, outcome: "ok" })).toBe(2);
  // each run slept at least 30 ms: none of them ends in the 5 ms bucket
  expect(sample(text, "baton_run_duration_seconds_bucket", { ...writer, outcome: "ok", le: "0.005" })).toBe(0);
  expect(sample(text, "baton_run_duration_seconds_bucket", { ...writer, outcome: "ok", le: "+Inf" })).toBe(2);
  // each of the two slept at least 30 ms of the clock its duration is measured with (the
  // sleep waits out a timer that fires early), and its duration starts at its
  // confirmation, which the sleep follows by at most a few microtasks. Before the sleep
  // waited out early timers, 0.0563 s was seen on CI; since, 0.0607-0.0646 s in six runs
  // with both cores busy elsewhere
  expect(sample(text, "baton_run_duration_seconds_sum", { ...writer, outcome: "ok" })).toBeGreaterThanOrEqual(0.058);
  expect(sample(text, "baton_run_retries_total", writer)).toBe(1);
  expect(sample(text, "baton_run_retries_total", { agent: "researcher" })).toBeUndefined();
  expect(sample(text, "baton_runs", { status: "failed" })).toBe(1);
});

it("counts provider errors by provider and status, and shows each provider's circuit", async () => {
  const circuits = new ProviderCircuits({ policy: { failureThreshold: 5 } });
  current = testRuntime({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL }, deps: { circuits } }).runner;
  await fixture.db.prisma.agent.updateMany({ where: { handle: "analyst" }, data: { model: "openai:gpt-test" } });
  fixture.executor.agentsChanged();
  server.reset();
  server.script(
    { kind: "error", status: 503, message: "overloaded", errorType: "server_error" },
    { kind: "error", status: 429, message: "rate limited", errorType: "rate_limit_error" },
  );
  server.whenEmpty({ kind: "text", text: "The provider is back." });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "provider", steps: [{ index: 1, title: "ask", assignee: "analyst", input: "hello" }] },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const text = await createMetrics({ prisma: fixture.db.prisma, liveSockets: () => 0, circuits }).metrics();
  expect(sample(text, "baton_provider_errors_total", { provider: "openai", status: "503" })).toBe(1);
  expect(sample(text, "baton_provider_errors_total", { provider: "openai", status: "429" })).toBe(1);
  // two failures are below the threshold, and the answer closed the circuit: 0 is closed
  expect(sample(text, "baton_provider_circuit_state", { provider: "openai" })).toBe(0);
  expect(text).toMatch(/^# HELP baton_lease_takeovers_total /m);
  // a sample of Baton's own series for the operator documentation (process metrics left out)
  const own = text.split("\n").filter((line) => /^baton_(?!process_)/.test(line) && !/_bucket\{/.test(line));
  console.log(`sample of /metrics:\n${own.join("\n")}`);
});

it("accepts only a configured bearer token", () => {
  expect(bearerMatches("Bearer s3cret-token-0123456789", ["s3cret-token-0123456789", undefined])).toBe(true);
  expect(bearerMatches("Bearer s3cret-token-012345678", ["s3cret-token-0123456789"])).toBe(false);
  expect(bearerMatches(undefined, ["s3cret-token-0123456789"])).toBe(false);
  expect(bearerMatches("Bearer x", [undefined])).toBe(false);
});
