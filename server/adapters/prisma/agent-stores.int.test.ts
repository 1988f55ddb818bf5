import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../db/testing/test-database.ts";
import { describeStoreConformance } from "../../agents/testing/store-conformance.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "./agent-stores.ts";
import { createPrismaPlanStatusReader } from "./plan-status-reader.ts";
import type { PlanStatus, StepStatus } from "../../generated/prisma/enums.ts";

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
    plans: createPrismaPlanStatusReader(prisma),
    plan: async (conversationId, { title, status, steps }) => {
      // a second after the plan before it: "newest" is by createdAt
      const plan = await prisma.plan.create({
        data: { conversationId, title, status: status as PlanStatus, maxParallel: 2, request: title, createdAt: new Date((clock += 1000)) },
      });
      for (const step of steps) {
        await prisma.planStep.create({
          data: {
            planId: plan.id,
            index: step.index,
            title: step.title,
            assignee: step.assignee,
            input: step.title,
            maxRetries: 2,
            status: step.status as StepStatus,
            attempts: step.attempts,
            outputSummary: step.summary,
            failureReason: step.failureReason,
          },
        });
        // one by one: the log's order is the order its rows were written
        for (const entry of step.log) {
          await prisma.stepEvent.create({
            data: { planId: plan.id, stepIndex: step.index, at: new Date(entry.at), phase: entry.phase, message: entry.message },
          });
        }
      }
      return plan.id;
    },
  };
});
