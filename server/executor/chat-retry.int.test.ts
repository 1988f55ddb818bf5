/**
 * The commander's chat reply retries a transient failure like a step: after a jittered
 * backoff, as a queued run no worker claims before its `notBefore`, so the retry is in
 * the database (not only in a timer) and survives the process that scheduled it.
 */
import { afterEach, expect, it } from "vitest";
import type { AgentRunResult, RunRequest } from "../ports/executor.ts";
import { BASE_BACKOFF_MS } from "../core/failure-policy.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { ok, sleep } from "./testing/scripted-runner.ts";

let fixture: ExecutorFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const overloaded: AgentRunResult = {
  kind: "failed",
  transient: true,
  reason: "openai (HTTP 503): overloaded",
  usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
};

/** attempts at answering each message */
const attempts = new Map<string, number>();

/** "flaky" fails twice and then answers; "always flaky" never answers */
function flakyCommander(request: RunRequest): AgentRunResult {
  if (request.purpose.kind !== "commander-chat") return ok(`done: ${request.input.slice(0, 40)}`);
  const attempt = (attempts.get(request.triggerMessageId ?? "") ?? 0) + 1;
  attempts.set(request.triggerMessageId ?? "", attempt);
  if (request.input.includes("always") || attempt < 3) return overloaded;
  return ok("Answered on the third try.");
}

async function say(f: ExecutorFixture, body: string, expectedRuns: number) {
  const message = await f.say(body);
  // the retries wait out their backoff: wait for the last attempt to end
  for (let i = 0; i < 1_000; i++) {
    const done = await f.db.prisma.run.count({ where: { triggerMessageId: message.id, endedAt: { not: null } } });
    if (done >= expectedRuns) break;
    await sleep(20);
  }
  await f.executor.idle();
  const runs = await f.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  const replies = await f.db.prisma.message.findMany({ where: { runId: { in: runs.map((run) => run.id) } } });
  return { runs, replies: replies.map((reply) => reply.body), attempts: runs.map((run) => [run.attempt, run.status]) };
}

const FAILED_TWICE_THEN_ANSWERED = [
  [1, "failed"],
  [2, "failed"],
  [3, "succeeded"],
];

it("retries after a backoff that grows, and reports the failure only once it sticks", async () => {
  fixture = await createExecutorFixture({ script: flakyCommander });
  const answered = await say(fixture, "@commander a flaky question", 3);
  expect(answered.attempts).toEqual(FAILED_TWICE_THEN_ANSWERED);
  expect(answered.replies).toEqual(["Answered on the third try."]);
  // each retry waited in the queue: no earlier than its notBefore, which is at least
  // half the step backoff after the failure (1st retry ≥ 250 ms, 2nd ≥ 500 ms)
  for (const [index, retry] of answered.runs.slice(1).entries()) {
    const failed = answered.runs[index];
    expect(retry.notBefore).not.toBeNull();
    const waited = retry.notBefore!.getTime() - failed.endedAt!.getTime();
    expect(waited).toBeGreaterThanOrEqual((BASE_BACKOFF_MS * 2 ** index) / 2 - 5);
    expect(retry.startedAt!.getTime()).toBeGreaterThanOrEqual(retry.notBefore!.getTime());
  }
  expect(answered.runs[0].notBefore).toBeNull();

  const stuck = await say(fixture, "@commander always flaky", 3);
  expect(stuck.attempts).toEqual([
    [1, "failed"],
    [2, "failed"],
    [3, "failed"],
  ]);
  // said once, with the attempts and the time since the first began
  expect(stuck.replies).toEqual([expect.stringMatching(/^\*\*Failed:\*\* openai \(HTTP 503\): overloaded \(3 attempts over \d+ s\)$/)]);
});

it("a retry whose timer was lost is claimed by the sweep: the backoff lives in the database", async () => {
  const lostTimers = { now: () => Date.now(), setTimer: () => ({ cancel() {} }) };
  fixture = await createExecutorFixture({ script: flakyCommander, clock: lostTimers, config: { sweepMs: 200 } });
  const answered = await say(fixture, "@commander a flaky question", 3);
  expect(answered.attempts).toEqual(FAILED_TWICE_THEN_ANSWERED);
});

async function secondAttempt(f: ExecutorFixture, messageId: string) {
  for (let i = 0; i < 500; i++) {
    const run = await f.db.prisma.run.findFirst({ where: { triggerMessageId: messageId, attempt: 2 } });
    if (run) return run;
    await sleep(10);
  }
  throw new Error("no second attempt was created");
}

it("a retry in backoff is not claimed early, even by another process", async () => {
  // scheduled far ahead: neither this process's claims nor a second worker's take it
  fixture = await createExecutorFixture({ script: flakyCommander });
  const message = await fixture.say("@commander always flaky");
  const retry = await secondAttempt(fixture, message.id);
  await fixture.db.prisma.run.update({ where: { id: retry.id }, data: { notBefore: new Date(Date.now() + 60_000) } });
  const other = await fixture.addExecutor({ role: "worker" });
  other.claimSoon();
  fixture.executor.claimSoon();
  await other.idle();
  await fixture.executor.idle();
  await sleep(100);
  expect(await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: retry.id } })).toMatchObject({ status: "queued" });
  // once due, it is claimed
  await fixture.db.prisma.run.update({ where: { id: retry.id }, data: { notBefore: new Date(Date.now() - 1) } });
  other.claimSoon();
  for (let i = 0; i < 500; i++) {
    const row = await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: retry.id } });
    if (row.status !== "queued") break;
    await sleep(10);
  }
  expect((await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: retry.id } })).status).not.toBe("queued");
});
