import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../db/testing/test-database.ts";
import { describeStoreConformance } from "../../agents/testing/store-conformance.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "./agent-stores.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(() => db?.close());

describeStoreConformance("Prisma stores", async () => {
  const prisma = db.prisma;
  const agent = await prisma.agent.create({ data: { handle: `writer-${randomUUID().slice(0, 8)}`, name: "Writer" } });
  // each message a second after the one before, as the memory store's clock does
  let clock = Date.parse("2026-01-01T00:00:00Z");
  return {
    sessions: createPrismaSessionStore(prisma, { delayMs: 5 }),
    artifacts: createPrismaArtifactStore(prisma),
    memory: createPrismaConversationMemory(prisma),
    conversation: async () => (await prisma.conversation.create({ data: { title: "stores" } })).id,
    run: async (conversationId) => (await prisma.run.create({ data: { conversationId, kind: "mention", input: "x" } })).id,
    post: async (conversationId, author, body) => {
      const user =
        author.kind === "user"
          ? await prisma.user.create({ data: { id: randomUUID(), name: author.name, email: `${randomUUID()}@example.test` } })
          : null;
      const authorAgent = author.kind === "agent" ? await prisma.agent.findUniqueOrThrow({ where: { handle: author.handle } }) : null;
      const message = await prisma.message.create({
        data: {
          conversationId,
          authorKind: author.kind,
          authorUserId: user?.id,
          authorAgentId: authorAgent?.id,
          body,
          createdAt: new Date((clock += 1000)),
        },
      });
      return { id: message.id, author, body, createdAt: message.createdAt.toISOString() };
    },
    agentHandle: agent.handle,
  };
});
