/**
 * A conversation's snapshot describes one moment, the one its `lastSeq` names: a client
 * replays the events after `lastSeq` on top of it, so a message the snapshot holds but
 * whose event comes after `lastSeq` would be applied twice, and rows read a moment apart
 * (runs still live, then the usage of ended ones) could each miss the same run. On
 * PostgreSQL each statement of a READ COMMITTED transaction sees its own moment; here a
 * message commits between the snapshot's first read and its read of the messages.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/test-database.ts";
import { createConversationServices } from "./conversations.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "postgres" });
});

afterAll(async () => {
  await db?.close();
});

it("a message committed while the snapshot is read is not in it, and lastSeq is the seq before it", async () => {
  const user = await db.prisma.user.create({ data: { id: "reader", email: "reader@example.com", name: "Reader" } });
  const conversation = await db.prisma.conversation.create({ data: { title: "moment", lastSeq: 3 } });
  await db.prisma.membership.create({ data: { conversationId: conversation.id, userId: user.id, role: "owner" } });
  const before = await db.prisma.message.create({
    data: { conversationId: conversation.id, authorKind: "user", authorUserId: user.id, kind: "text", body: "before" },
  });

  // another writer commits a message and its event's seq after the snapshot's first read
  // (the conversation, with lastSeq) and before it reads the messages
  let raced: string | null = null;
  const racing = db.prisma.$extends({
    query: {
      message: {
        async findMany({ args, query }) {
          if (raced === null) {
            const message = await db.prisma.$transaction(async (tx) => {
              await tx.conversation.update({ where: { id: conversation.id }, data: { lastSeq: { increment: 1 } } });
              return tx.message.create({
                data: { conversationId: conversation.id, authorKind: "user", authorUserId: user.id, kind: "text", body: "during" },
              });
            });
            raced = message.id;
          }
          return query(args);
        },
      },
    },
  }) as unknown as PrismaClient;

  const snapshot = await createConversationServices(racing).getSnapshot({
    actor: { id: user.id, role: "member" },
    conversationId: conversation.id,
  });

  expect(raced).not.toBeNull();
  expect(snapshot.lastSeq).toBe(3);
  expect(snapshot.messages.map((message) => message.id)).toEqual([before.id]);
  // the racing writer did commit: the next snapshot has it
  const next = await createConversationServices(db.prisma).getSnapshot({
    actor: { id: user.id, role: "member" },
    conversationId: conversation.id,
  });
  expect(next.lastSeq).toBe(4);
  expect(next.messages.map((message) => message.id)).toEqual([before.id, raced]);
});
