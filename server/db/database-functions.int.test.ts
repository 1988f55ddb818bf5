/**
 * The hot path's database functions on both databases: the optimistic write refuses
 * to apply anything when the plan changed since it was read.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";
import { sqlWrites, WriteBatch, CONFLICT_MARKER } from "../adapters/prisma/write-batch.ts";
import { conversationLockKey, enterConversation } from "../adapters/prisma/plan-repository.ts";

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

describe.each(["embedded", "postgres"] as const)("database functions on %s", (kind) => {
  it("applies an optimistic batch only while the plan is as it was read", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
    const plan = await db.prisma.plan.create({ data: { conversationId: conversation.id, title: "p", maxParallel: 1, request: "r" } });
    const batchWithMessage = () => {
      const batch = new WriteBatch();
      batch.add(
        sqlWrites.insertMessage({
          id: randomUUID(),
          conversationId: conversation.id,
          authorKind: "system",
          authorAgentId: null,
          kind: "text",
          body: "hello",
          mentions: [],
          planId: plan.id,
          stepId: null,
          runId: null,
          formId: null,
          createdAt: new Date(),
        }),
      );
      return batch;
    };
    const expectation = (version: number) => ({
      lockKey: conversationLockKey(conversation.id),
      planId: plan.id,
      version,
      runId: null,
      runStatus: null,
    });
    const events = [{ type: "message-created" as const, payload: { message: {} as never } }];

    await expect(
      batchWithMessage().flush(db.prisma, { conversationId: conversation.id, events, now: new Date(), expect: expectation(1) }),
    ).rejects.toThrow(CONFLICT_MARKER);
    expect(await db.prisma.message.count()).toBe(0);
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).lastSeq).toBe(0);

    const lastSeq = await batchWithMessage().flush(db.prisma, {
      conversationId: conversation.id,
      events,
      now: new Date(),
      expect: expectation(0),
    });
    expect(lastSeq).toBe(1);
    expect(await db.prisma.message.count()).toBe(1);
    expect(await db.prisma.conversationEvent.count()).toBe(1);

    // the locked path reads the same facts after taking the lock
    const read = await db.prisma.$transaction((tx) => enterConversation(tx, { conversationId: conversation.id, planId: plan.id, runId: null }));
    expect(read.version).toBe(0);
    expect(read.runStatus).toBeNull();
  });
});
