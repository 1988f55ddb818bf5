/**
 * A conversation's snapshot describes one moment, the one its `lastSeq` names: a client
 * replays the events after `lastSeq` on top of it. On PostgreSQL each statement of a READ
 * COMMITTED transaction sees its own moment, so here another writer commits between two
 * of the snapshot's reads: a message (which would come with a `lastSeq` from before its
 * own event), and a run's end between the read of live runs and the sum of ended runs'
 * usage (which would count the run in both, and the usage line would show it twice).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createConversationServices } from "./conversations.ts";

let db: TestDatabase;
const reader = { id: "reader", role: "member" as const };

beforeAll(async () => {
  db = await createTestDatabase({ kind: "postgres" });
  await db.prisma.user.create({ data: { id: reader.id, email: "reader@example.com", name: "Reader" } });
});

afterAll(async () => {
  await db?.close();
});

async function conversationWithReader(title: string) {
  const conversation = await db.prisma.conversation.create({ data: { title, lastSeq: 3 } });
  await db.prisma.membership.create({ data: { conversationId: conversation.id, userId: reader.id, role: "owner" } });
  return conversation;
}

/** The snapshot, read through a client on which `race` commits (on its own connection) just before the read it names. */
function snapshotRacing(
  conversationId: string,
  read: { model: "Message"; operation: "findMany" } | { model: "Run"; operation: "groupBy" },
  race: () => Promise<void>,
) {
  let raced = false;
  const racing = db.prisma.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          if (!raced && model === read.model && operation === read.operation) {
            raced = true;
            await race();
          }
          return query(args);
        },
      },
    },
  }) as unknown as PrismaClient;
  return createConversationServices(racing).getSnapshot({ actor: reader, conversationId });
}

it("a message committed while the snapshot is read is not in it, and lastSeq is the seq before it", async () => {
  const conversation = await conversationWithReader("a message mid-read");
  const message = (body: string) => ({
    conversationId: conversation.id,
    authorKind: "user" as const,
    authorUserId: reader.id,
    kind: "text" as const,
    body,
  });
  const before = await db.prisma.message.create({ data: message("before") });
  let during: string | null = null;

  // after the conversation's read (with lastSeq), before the messages'
  const snapshot = await snapshotRacing(conversation.id, { model: "Message", operation: "findMany" }, async () => {
    during = await db.prisma.$transaction(async (tx) => {
      await tx.conversation.update({ where: { id: conversation.id }, data: { lastSeq: { increment: 1 } } });
      return (await tx.message.create({ data: message("during") })).id;
    });
  });

  expect(during).not.toBeNull();
  expect(snapshot.lastSeq).toBe(3);
  expect(snapshot.messages.map((m) => m.id)).toEqual([before.id]);
  // the other writer did commit: the next snapshot has it
  const next = await createConversationServices(db.prisma).getSnapshot({ actor: reader, conversationId: conversation.id });
  expect(next.lastSeq).toBe(4);
  expect(next.messages.map((m) => m.id)).toEqual([before.id, during]);
});

it("a run that ends while the snapshot is read is a live run of it, not also in the ended runs' usage", async () => {
  const conversation = await conversationWithReader("a run ending mid-read");
  const run = await db.prisma.run.create({
    data: { conversationId: conversation.id, kind: "chat", input: "x", status: "running", tokensIn: 0, tokensOut: 0, cost: 0 },
  });

  // after the live runs' read, before the ended runs' usage is summed
  const snapshot = await snapshotRacing(conversation.id, { model: "Run", operation: "groupBy" }, async () => {
    await db.prisma.run.update({
      where: { id: run.id },
      data: { status: "succeeded", endedAt: new Date(), tokensIn: 100, tokensOut: 20, cost: 0.01 },
    });
  });

  expect(snapshot.runs.map((r) => [r.id, r.status])).toEqual([[run.id, "running"]]);
  expect(snapshot.endedUsage.total).toEqual({ tokens: 0, cost: 0, runs: 0, estimated: false });
  const next = await createConversationServices(db.prisma).getSnapshot({ actor: reader, conversationId: conversation.id });
  expect(next.runs).toEqual([]);
  expect(next.endedUsage.total).toMatchObject({ tokens: 120, runs: 1 });
});
