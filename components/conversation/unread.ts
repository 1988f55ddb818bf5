import type { MessageDTO } from "@/server/protocol/dto.ts";

/**
 * What the reader has not seen since `lastReadAt`: the first message after it that
 * someone else wrote, and how many there are. Never read (null): nothing is marked, so
 * joining a long conversation does not open on a wall of "new".
 */
export function unreadSince(
  messages: readonly Pick<MessageDTO, "id" | "createdAt" | "author" | "deletedAt">[],
  { lastReadAt, currentUserId }: { lastReadAt: string | null; currentUserId: string },
): { firstId: string | null; count: number } {
  if (lastReadAt === null) return { firstId: null, count: 0 };
  const read = Date.parse(lastReadAt);
  const unread = messages.filter(
    (message) => Date.parse(message.createdAt) > read && message.author?.id !== currentUserId && message.deletedAt === null,
  );
  return { firstId: unread[0]?.id ?? null, count: unread.length };
}
