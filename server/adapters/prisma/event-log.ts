/**
 * The per-conversation event log. `seq` comes from bumping Conversation.lastSeq inside
 * the caller's transaction: the row lock orders concurrent writers, so seq is gap-free
 * and matches commit order for each conversation.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { ConversationEventDTO, ConversationEventPayloads, ConversationEventType } from "../../protocol/events.ts";
import { PROTOCOL_VERSION } from "../../protocol/events.ts";

type Tx = Prisma.TransactionClient;

export interface PendingEvent<K extends ConversationEventType = ConversationEventType> {
  type: K;
  payload: ConversationEventPayloads[K];
}

export function pendingEvent<K extends ConversationEventType>(
  type: K,
  payload: ConversationEventPayloads[K],
): PendingEvent<K> {
  return { type, payload };
}

/** Appends events in order and returns them with their seq, ready to publish after commit. */
export async function appendConversationEvents(
  tx: Tx,
  conversationId: string,
  events: PendingEvent[],
): Promise<ConversationEventDTO[]> {
  if (events.length === 0) return [];
  const updated = await tx.conversation.update({
    where: { id: conversationId },
    data: { lastSeq: { increment: events.length } },
    select: { lastSeq: true },
  });
  const firstSeq = updated.lastSeq - events.length + 1;
  const createdAt = new Date();
  await tx.conversationEvent.createMany({
    data: events.map((event, offset) => ({
      conversationId,
      seq: firstSeq + offset,
      type: event.type,
      payload: event.payload as unknown as Prisma.InputJsonValue,
      createdAt,
    })),
  });
  return events.map(
    (event, offset) =>
      ({
        v: PROTOCOL_VERSION,
        conversationId,
        seq: firstSeq + offset,
        type: event.type,
        payload: event.payload,
        createdAt: createdAt.toISOString(),
      }) as ConversationEventDTO,
  );
}

/** Events after `afterSeq`, oldest first: what a reconnecting client replays. */
export async function listConversationEvents(
  db: Tx,
  { conversationId, afterSeq, limit = 1000 }: { conversationId: string; afterSeq: number; limit?: number },
): Promise<ConversationEventDTO[]> {
  const rows = await db.conversationEvent.findMany({
    where: { conversationId, seq: { gt: afterSeq } },
    orderBy: { seq: "asc" },
    take: limit,
  });
  return rows.map(
    (row) =>
      ({
        v: PROTOCOL_VERSION,
        conversationId: row.conversationId,
        seq: row.seq,
        type: row.type,
        payload: row.payload,
        createdAt: row.createdAt.toISOString(),
      }) as ConversationEventDTO,
  );
}
