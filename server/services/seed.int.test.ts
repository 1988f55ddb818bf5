/** Seeding is idempotent, also when several processes seed one database at the same moment. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { DEMO_CONVERSATION_TITLE, seedWorkspace } from "./seed.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "postgres" });
});

afterAll(async () => {
  await db?.close();
});

it("eight concurrent seeds make one workspace: four agents, one automation user, one demo conversation", async () => {
  const results = await Promise.all(
    Array.from({ length: 8 }, () => seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: true })),
  );
  expect(new Set(results.map((r) => r.demoConversationId)).size).toBe(1);
  expect(new Set(results.map((r) => r.apiUserId)).size).toBe(1);
  expect(await db.prisma.agent.count()).toBe(4);
  expect(await db.prisma.user.count()).toBe(1);
  const demos = await db.prisma.conversation.findMany({
    where: { title: DEMO_CONVERSATION_TITLE },
    include: { agents: true, memberships: true },
  });
  expect(demos).toHaveLength(1);
  expect(demos[0].agents).toHaveLength(4);
  expect(demos[0].memberships.map((m) => [m.userId, m.role])).toEqual([[results[0].apiUserId, "owner"]]);
});

it("unedited demo agents follow the default model; an admin's edit is kept", async () => {
  const writer = await db.prisma.agent.findUniqueOrThrow({ where: { handle: "writer" } });
  await db.prisma.agent.update({ where: { id: writer.id }, data: { model: "local:llama3" } });
  await Promise.all([1, 2, 3].map(() => seedWorkspace(db.prisma, { defaultModel: "openai:gpt-4.1-mini", demoConversation: true })));
  const agents = await db.prisma.agent.findMany({ orderBy: { handle: "asc" } });
  expect(agents.map((a) => [a.handle, a.model])).toEqual([
    ["analyst", "openai:gpt-4.1-mini"],
    ["commander", "openai:gpt-4.1-mini"],
    ["researcher", "openai:gpt-4.1-mini"],
    ["writer", "local:llama3"],
  ]);
  // still "unedited": a later default applies again
  const researcher = agents.find((a) => a.handle === "researcher")!;
  expect(researcher.updatedAt.getTime()).toBe(researcher.createdAt.getTime());
  expect(await db.prisma.conversation.count({ where: { title: DEMO_CONVERSATION_TITLE } })).toBe(1);
});
