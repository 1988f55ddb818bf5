/**
 * The per-conversation event log. Events are appended by the executor's write batch
 * (write-batch.ts), which bumps Conversation.lastSeq in the same statement: the row
 * lock orders concurrent writers, so seq is gap-free and follows commit order.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { ConversationEventDTO, ConversationEventPayloads, ConversationEventType } from "../../protocol/events.ts";
import { PROTOCOL_VERSION } from "../../protocol/events.ts";

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
