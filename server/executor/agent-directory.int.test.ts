/**
 * The roster's order is part of the commander's cached prompt prefix (agents/prompt.ts):
 * it must be the order agents joined, not whatever order the database's scan returns.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { AgentDirectory } from "./agent-directory.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";

let fixture: ExecutorFixture;

beforeAll(async () => {
  fixture = await createExecutorFixture();
});
afterAll(() => fixture?.close());

it("lists a conversation's agents in the order they joined", async () => {
  const { db } = fixture;
  const agents = await db.prisma.agent.findMany({ where: { handle: { in: ["writer", "researcher", "analyst"] } } });
  const id = (handle: string) => agents.find((agent) => agent.handle === handle)!.id;
  const conversation = await db.prisma.conversation.create({ data: { title: "roster order" } });
  // joined against the order of their ids, which an index scan of the primary key returns
  const joined = [...agents].sort((a, b) => (a.id < b.id ? 1 : -1)).map((agent) => agent.handle);
  // written in the opposite order, as a later edit or a restore could leave them: neither
  // the table's own order nor its primary key's is the order they joined
  for (const [at, handle] of [...joined.entries()].reverse()) {
    await db.prisma.conversationAgent.create({
      data: { conversationId: conversation.id, agentId: id(handle), createdAt: new Date(Date.UTC(2026, 0, 1, 0, at)) },
    });
  }

  const roster = await new AgentDirectory(() => 0).roster(db.prisma, conversation.id, { fresh: true });
  expect(roster.map((agent) => agent.handle)).toEqual(joined);
});
