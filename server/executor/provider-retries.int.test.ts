/**
 * The one retry policy end to end (core/retry-policy.ts): real AI SDK providers against
 * the loopback fake model server, run by the executor. Retries do not multiply: a step
 * makes at most 1 + maxRetries + 1 provider calls, a reply at most 1 + 2 + 1, and a long
 * Retry-After becomes a durable wait instead of a failure.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import type { AgentRunner, Clock } from "../ports/executor.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../agents/testing/fake-model-server.ts";
import { testRuntime } from "../agents/testing/agent-fixture.ts";
import { maxProviderCalls } from "../core/retry-policy.ts";
import { REPLY_MAX_ATTEMPTS } from "./chat-retry.ts";
import { sleep } from "./testing/scripted-runner.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = "openai:gpt-test";
const ALWAYS_500: ScriptedTurn = { kind: "error", status: 500, message: "internal error", errorType: "server_error" };
const RATE_LIMITED_FOR_2_MIN: ScriptedTurn = {
  kind: "error",
  status: 429,
  message: "rate limited",
  errorType: "rate_limit_error",
  headers: { "retry-after": "120" },
};
const ALWAYS_CUT: ScriptedTurn = { kind: "drop", text: "an answer cut off somewhere in the middle" };

/** Real time, plus an offset the test moves forward: timers due by then fire at once. */
function jumpingClock() {
  let offset = 0;
  const timers = new Set<{ at: number; fire: () => void; handle: ReturnType<typeof setTimeout> }>();
  const clock: Clock = {
    now: () => Date.now() + offset,
    setTimer(at, callback) {
      const timer = {
        at,
        fire: () => {
          if (!timers.delete(timer)) return;
          callback();
        },
        handle: setTimeout(() => timer.fire(), Math.max(0, at - clock.now())),
      };
      timer.handle.unref?.();
      timers.add(timer);
      return {
        cancel: () => {
          clearTimeout(timer.handle);
          timers.delete(timer);
        },
      };
    },
  };
  return {
    clock,
    jump(ms: number) {
      offset += ms;
      for (const timer of [...timers].filter((candidate) => candidate.at <= clock.now())) {
        clearTimeout(timer.handle);
        timer.fire();
      }
    },
  };
}

let server: FakeModelServer;
let fixture: ExecutorFixture;
let runner: AgentRunner;
const time = jumpingClock();

beforeAll(async () => {
  server = await startFakeModelServer();
  runner = testRuntime({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL } }).runner;
  fixture = await createExecutorFixture({ createRunner: () => runner, clock: time.clock });
  await fixture.db.prisma.agent.updateMany({ data: { model: MODEL } });
  fixture.executor.agentsChanged();
});

afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

beforeEach(() => server.reset());

async function stepThatFails(title: string, response: ScriptedTurn) {
  server.whenEmpty(response);
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    // abort_plan: no commander decision (a chain of its own) follows the failure
    raw: { title, steps: [{ index: 1, title: "ask", assignee: "analyst", input: "hello", max_retries: 3, on_failure: "abort_plan" }] },
  });
  const status = await fixture.waitForPlan(plan.id, undefined, 60_000);
  const step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
  return { status, step, calls: server.requests.length };
}

it("a step whose provider always answers 500 makes at most 1 + 3 + 1 calls and fails naming the status and the time", async () => {
  const { status, step, calls } = await stepThatFails("Always 500", ALWAYS_500);
  console.log(`provider calls for a step that always gets a 500 (3 retries): ${calls} (bound ${maxProviderCalls(3)})`);
  expect(status).toBe("failed");
  // a 500 goes straight to the durable retry: one call per attempt
  expect(calls).toBe(4);
  expect(calls).toBeLessThanOrEqual(maxProviderCalls(3));
  expect(step.transientFailures).toBe(3);
  expect(step.failureReason).toMatch(/^openai \(HTTP 500\): internal error .*\(no retries left after 3 over \d+ s\)$/);
}, 90_000);

it("a step whose stream is always cut resumes once in place, then only by durable retries: 5 calls", async () => {
  const { status, calls } = await stepThatFails("Always cut", ALWAYS_CUT);
  expect(status).toBe("failed");
  expect(calls).toBe(maxProviderCalls(3));
}, 90_000);

async function reply(body: string, expectedRuns: number) {
  const message = await fixture.say(body);
  for (let i = 0; i < 1_500; i++) {
    const ended = await fixture.db.prisma.run.count({ where: { triggerMessageId: message.id, endedAt: { not: null } } });
    if (ended >= expectedRuns) break;
    await sleep(20);
  }
  await fixture.executor.idle();
  const runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  const said = await fixture.db.prisma.message.findMany({ where: { runId: { in: runs.map((run) => run.id) } } });
  return { runs, said: said.map((entry) => entry.body) };
}

it("a chat reply whose provider always answers 500 makes at most 1 + 2 + 1 calls, then says why once", async () => {
  server.whenEmpty(ALWAYS_500);
  const { runs, said } = await reply("@commander are you there?", REPLY_MAX_ATTEMPTS);
  expect(runs.map((run) => run.status)).toEqual(["failed", "failed", "failed"]);
  expect(server.requests.length).toBe(REPLY_MAX_ATTEMPTS);
  expect(server.requests.length).toBeLessThanOrEqual(maxProviderCalls(REPLY_MAX_ATTEMPTS - 1));
  expect(said).toEqual([expect.stringMatching(/^\*\*Failed:\*\* openai \(HTTP 500\): internal error .*\(3 attempts over \d+ s\)$/)]);
}, 90_000);

it("a Retry-After of 120 s is a durable wait: the step waits it out and goes on, not failed for good", async () => {
  server.script(RATE_LIMITED_FOR_2_MIN);
  server.whenEmpty({ kind: "text", text: "Answered after the wait." });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "Rate limited", steps: [{ index: 1, title: "ask", assignee: "analyst", input: "hello", max_retries: 3 }] },
  });
  let step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
  for (let i = 0; i < 500 && step.transientFailures === 0; i++) {
    await sleep(20);
    step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
  }
  // pending until the provider's time, and the log says so
  expect(step).toMatchObject({ status: "pending", transientFailures: 1 });
  expect(step.retryAt!.getTime() - time.clock.now()).toBeGreaterThan(110_000);
  const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id } });
  expect(log.map((entry) => entry.message).join("\n")).toContain("waiting 2 min as the provider asked");
  expect(server.requests).toHaveLength(1);
  time.jump(120_000);
  expect(await fixture.waitForPlan(plan.id, undefined, 30_000)).toBe("completed");
  expect(server.requests).toHaveLength(2);
}, 90_000);

it("a Retry-After of 120 s on a mention queues the next attempt for then instead of failing it", async () => {
  server.script(RATE_LIMITED_FOR_2_MIN);
  server.whenEmpty({ kind: "text", text: "never reached in this test" });
  const message = await fixture.say("@analyst a quick question");
  let runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  for (let i = 0; i < 500 && runs.length < 2; i++) {
    await sleep(20);
    runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  }
  expect(runs.map((run) => [run.attempt, run.status])).toEqual([
    [1, "failed"],
    [2, "queued"],
  ]);
  expect(runs[1].notBefore!.getTime() - runs[0].endedAt!.getTime()).toBeGreaterThanOrEqual(120_000);
  // nothing was posted: the failure is not news while a retry waits
  expect(await fixture.db.prisma.message.count({ where: { runId: runs[0].id } })).toBe(0);
}, 60_000);
