/**
 * How far each person has read a conversation (Membership.lastReadAt): the "new messages"
 * line opens above the first message after it. A mark only moves forward, and never past
 * now, so a late or skewed request cannot hide messages nobody has seen.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Actor } from "../access/actor.ts";

/** When the actor last read the conversation; null: never (or not a member). Only ever one's own mark. */
export async function lastReadAt(prisma: PrismaClient, { actor, conversationId }: { actor: Actor; conversationId: string }) {
  const membership = await prisma.membership.findUnique({
    where: { conversationId_userId: { conversationId, userId: actor.id } },
    select: { lastReadAt: true },
  });
  return membership?.lastReadAt ?? null;
}

/**
 * Marks the conversation read up to `upTo` (the newest message the person has seen), or
 * now. The caller has checked membership; a non-member's call changes nothing.
 */
export async function markRead(
  prisma: PrismaClient,
  { actor, conversationId, upTo }: { actor: Actor; conversationId: string; upTo?: Date },
): Promise<{ lastReadAt: Date | null }> {
  const now = new Date();
  const at = upTo && upTo < now ? upTo : now;
  await prisma.membership.updateMany({
    where: { conversationId, userId: actor.id, OR: [{ lastReadAt: null }, { lastReadAt: { lt: at } }] },
    data: { lastReadAt: at },
  });
  return { lastReadAt: await lastReadAt(prisma, { actor, conversationId }) };
}
