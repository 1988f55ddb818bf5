/**
 * Emoji reactions on messages: the small set people pick from, and how a message's
 * reactions are summed up for the wire (one entry per emoji, in the order first used).
 */
import { z } from "zod";

/** The picker's emoji; the server refuses any other (a reaction is a signal, not a message). */
export const REACTION_EMOJI = ["👍", "❤️", "😄", "🎉", "👀", "🙏", "✅", "❌"] as const;
export type ReactionEmoji = (typeof REACTION_EMOJI)[number];

export function isReactionEmoji(value: string): value is ReactionEmoji {
  return (REACTION_EMOJI as readonly string[]).includes(value);
}

export const reactionSchema = z.object({
  emoji: z.string(),
  /** who reacted, in the order they did */
  people: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type ReactionDTO = z.infer<typeof reactionSchema>;

/** Rows (oldest first) → one entry per emoji, in the order each emoji was first used. */
export function summarizeReactions(rows: readonly { emoji: string; userId: string; userName: string }[]): ReactionDTO[] {
  const byEmoji = new Map<string, ReactionDTO>();
  for (const row of rows) {
    const entry = byEmoji.get(row.emoji) ?? { emoji: row.emoji, people: [] };
    if (!entry.people.some((person) => person.id === row.userId)) entry.people.push({ id: row.userId, name: row.userName });
    byEmoji.set(row.emoji, entry);
  }
  return [...byEmoji.values()];
}
