/**
 * Consecutive messages from one author within a few minutes read as one block: the
 * name and avatar are shown once, at its first message (as Slack does).
 */
import type { MessageDTO } from "@/server/protocol/dto.ts";

export const GROUP_WINDOW_MS = 5 * 60_000;

/** Kinds that always start a block of their own: they announce something, not continue a thought. */
const STANDALONE: ReadonlySet<MessageDTO["kind"]> = new Set(["plan", "form", "decision", "outcome", "error", "dispatch"]);

function authorKey(message: MessageDTO): string {
  return `${message.authorKind}:${message.author?.id ?? ""}`;
}

/** Whether `message` continues the block `previous` belongs to (same author, same kind of talk, within the window). */
export function continuesGroup(previous: MessageDTO | undefined, message: MessageDTO): boolean {
  if (!previous || previous.deletedAt || message.deletedAt) return false;
  if (STANDALONE.has(message.kind) || STANDALONE.has(previous.kind)) return false;
  if (authorKey(previous) !== authorKey(message)) return false;
  const gap = Date.parse(message.createdAt) - Date.parse(previous.createdAt);
  return gap >= 0 && gap < GROUP_WINDOW_MS;
}
