/**
 * Who a person's message wakes, through the executor and the database: typed handles
 * are mentions, people-only messages wake nobody, an agent outside the conversation is
 * reported instead of the message going to the commander, and by default the commander
 * answers every unaddressed message however many people are here.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";

let fixture: ExecutorFixture;

beforeAll(async () => {
  fixture = await createExecutorFixture();
  await fixture.db.prisma.agent.create({
    data: { handle: "designer", name: "Designer", role: "sub_agent", systemPrompt: "You design.", model: "offline" },
  });
});
afterAll(() => fixture.close());

async function say(body: string, mentionHandles: string[] = []) {
  const message = await fixture.app.messages.postMessage({
    conversationId: fixture.conversationId,
    author: { kind: "user", userId: fixture.userId },
    body,
    mentionHandles,
  });
  await fixture.executor.idle();
  const runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, include: { agent: true } });
  return { message, woke: runs.map((run) => run.agent?.handle).sort() };
}

it("alone with the agents, every message is answered by the commander", async () => {
  expect((await say("what can you do?")).woke).toEqual(["commander"]);
});

it("a handle typed in full is a mention, exactly as one picked from the autocomplete", async () => {
  const typed = await say("@analyst what do you think?");
  expect(typed.woke).toEqual(["analyst"]);
  expect(typed.message.mentions).toEqual([expect.objectContaining({ handle: "analyst" })]);
  expect((await say("@analyst and @writer, thoughts?", ["analyst"])).woke).toEqual(["analyst", "writer"]);
  // inside code it is text
  expect((await say("see `@writer` in the docs")).woke).toEqual(["commander"]);
});

it("an agent outside the conversation is reported, and nobody else answers in its place", async () => {
  const outside = await say("@designer can you sketch this?");
  expect(outside.woke).toEqual([]);
  expect(outside.message.notInConversation).toEqual(["designer"]);
  expect(outside.message.mentions).toEqual([]);
});

it("an agent added a moment ago, by another process, is mentioned at once (the roster is read, not a cached copy)", async () => {
  // just now this executor read the roster without @designer; another process adds it, behind this one's back
  const designer = await fixture.db.prisma.agent.findUniqueOrThrow({ where: { handle: "designer" } });
  await fixture.db.prisma.conversationAgent.create({ data: { conversationId: fixture.conversationId, agentId: designer.id } });
  const picked = await say("@designer can you sketch this now?", ["designer"]);
  expect(picked.woke).toEqual(["designer"]);
  expect(picked.message.notInConversation ?? []).toEqual([]);
  await fixture.db.prisma.conversationAgent.delete({
    where: { conversationId_agentId: { conversationId: fixture.conversationId, agentId: designer.id } },
  });
});

it("with several people the commander still answers unaddressed messages; people-only mentions wake nobody", async () => {
  const bea = await fixture.db.prisma.user.create({
    data: { id: randomUUID(), name: "Bea Stone", email: `bea-${randomUUID()}@example.com` },
  });
  await fixture.db.prisma.membership.create({ data: { conversationId: fixture.conversationId, userId: bea.id } });
  // a request typed without @commander is not lost because someone else joined
  expect((await say("what should the launch budget be?")).woke).toEqual(["commander"]);
  const toBea = await say("@bea can you check the numbers?");
  expect(toBea.woke).toEqual([]);
  // the person is a structured mention on the message (she is notified from it), by the handle typed
  expect(toBea.message.mentions).toEqual([{ userId: bea.id, handle: "bea" }]);
  expect((await say("@beastone and @commander, look")).message.mentions).toEqual([
    expect.objectContaining({ handle: "commander" }),
    { userId: bea.id, handle: "beastone" },
  ]);
  expect((await say("@commander please plan the launch")).woke).toEqual(["commander"]);

  // a setting of the conversation's owners: a member is refused and nothing changes
  await expect(
    fixture.services.setCommanderReplies({
      actor: { id: bea.id, role: "member" },
      conversationId: fixture.conversationId,
      mode: "when_addressed",
    }),
  ).rejects.toThrow(/owners/);
  expect((await say("and the budget?")).woke).toEqual(["commander"]);
  await fixture.services.setCommanderReplies({
    actor: { id: fixture.userId, role: "member" },
    conversationId: fixture.conversationId,
    mode: "when_addressed",
  });
  expect((await say("one more thing")).woke).toEqual([]);
});
