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

// The line under the composer (one name, two names, or a count) is the message
// conversation.typing, an ICU plural in messages/*.json.
