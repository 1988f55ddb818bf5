/**
 * The per-conversation event log. Events are appended by the executor's write batch
 * (write-batch.ts), which bumps Conversation.lastSeq in the same statement: the row
 * lock orders concurrent writers, so seq is gap-free and follows commit order.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { ConversationEventDTO, ConversationEventPayloads, ConversationEventType } from "../../protocol/events.ts";
import { PROTOCOL_VERSION } from "../../protocol/events.ts";
import type { MessageDTO } from "../../protocol/dto.ts";

type Tx = Prisma.TransactionClient;

export interface PendingEvent<K extends ConversationEventType = ConversationEventType> {
  type: K;
  payload: ConversationEventPayloads[K];
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

/**
 * Deleting means deleted: every stored event that carries the message (its creation,
 * earlier edits) is rewritten to carry it as it is now, in the transaction that edits or
 * deletes it, so no replay — socket or `GET …/events`, also for someone added later —
 * hands out the old text. Events are otherwise append-only; their seq and type stay.
 */
export async function rewriteMessageEvents(db: Tx, input: { conversationId: string; message: MessageDTO }): Promise<number> {
  return db.$executeRaw`UPDATE "ConversationEvent"
    SET "payload" = jsonb_set("payload", '{message}', ${JSON.stringify(input.message)}::jsonb)
    WHERE "conversationId" = ${input.conversationId} AND "payload"->'message'->>'id' = ${input.message.id}`;
}
