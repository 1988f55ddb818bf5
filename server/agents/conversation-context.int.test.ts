/**
 * Through the executor, the database and the real agent runtime (offline model): a
 * person states a fact, then mentions an agent; the agent's run was given the fact as
 * an earlier turn, read from the conversation's messages.
 */
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { offlineAgentRunner } from "../executor/testing/offline-runtime.ts";
import { waitFor } from "../testing/wait-for.ts";

let fixture: ExecutorFixture;

beforeAll(async () => {
  fixture = await createExecutorFixture({
    createRunner: offlineAgentRunner,
  });
});

afterAll(async () => {
  await fixture?.close();
});

const say = (body: string, mentionHandles: string[] = []) =>
  fixture.app.messages.postMessage({
    conversationId: fixture.conversationId,
    author: { kind: "user", userId: fixture.userId },
    body,
    mentionHandles,
  });

it("gives a mentioned agent the conversation before the message, as turns", async () => {
  await say("@writer note: the launch is on the 14th of March");
  await fixture.executor.idle();
  const question = await say("@researcher when is the launch?", ["researcher"]);
  await fixture.executor.idle();

  // sessions are written in batches a moment after the run (agent-stores.ts): wait for this one
  const run = await waitFor(async () => {
    const row = await fixture.db.prisma.run.findFirstOrThrow({ where: { triggerMessageId: question.id }, include: { agent: true } });
    return row.session === null ? undefined : row;
  }, 10_000);
  expect(run.agent?.handle).toBe("researcher");
  const session = run.session as ModelMessage[];
  const texts = session.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
  const fact = texts.findIndex((text) => text.includes("Ada: @writer note: the launch is on the 14th of March"));
  const own = texts.findIndex((text) => text.includes("when is the launch?") && text.includes("## Your task"));
  expect(fact).toBeGreaterThan(0);
  expect(own).toBeGreaterThan(fact);
  // the writer's answer to the first message (it was mentioned) is an earlier turn too: another agent's, fenced
  expect(
    texts.slice(0, own).some((text) => text.startsWith('@writer (Writer, an agent) wrote:\n<untrusted-data source="agent:writer">')),
  ).toBe(true);
  expect(run.status).toBe("succeeded");
});
