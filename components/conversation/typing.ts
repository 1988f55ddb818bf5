/**
 * "Alice is typing…": a person's client says so at most every TYPING_ANNOUNCE_MS while
 * they type; everyone else shows it until TYPING_EXPIRES_MS after the last notice, so a
 * person who stops (or whose tab closes) disappears by itself. Nothing is stored.
 */
export const TYPING_ANNOUNCE_MS = 3_000;
export const TYPING_EXPIRES_MS = 6_000;

export interface Typist {
  name: string;
  /** epoch ms after which the notice no longer holds */
  until: number;
}

/** Those still typing at `now`. */
export function stillTyping(typists: Record<string, Typist>, now: number): Record<string, Typist> {
  return Object.fromEntries(Object.entries(typists).filter(([, typist]) => typist.until > now));
}

/**
 * Those still typing once `authorId`'s message arrived: its author has sent what they were
 * typing (if they go on, their next notice brings them back), the others type on.
 */
export function afterMessageFrom(typists: Record<string, Typist>, authorId: string | undefined): Record<string, Typist> {
  if (authorId === undefined || !(authorId in typists)) return typists;
  return Object.fromEntries(Object.entries(typists).filter(([userId]) => userId !== authorId));
}

// The line under the composer (one name, two names, or a count) is the message
// conversation.typing, an ICU plural in messages/*.json.
