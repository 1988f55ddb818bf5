/**
 * Who answers a person's message (DESIGN rule 6). Pure: the caller resolves the
 * message's mentions (server/protocol/mentions.ts) and counts the people.
 */

export const COMMANDER_REPLY_MODES = ["auto", "always", "when_addressed"] as const;
export type CommanderReplyMode = (typeof COMMANDER_REPLY_MODES)[number];

export function isCommanderReplyMode(value: unknown): value is CommanderReplyMode {
  return typeof value === "string" && (COMMANDER_REPLY_MODES as readonly string[]).includes(value);
}

export type Addressees =
  /** the agents of the conversation the message mentions (the commander among them, if mentioned) */
  | { kind: "agents"; handles: string[] }
  /** nobody mentioned, and the commander answers unaddressed messages here */
  | { kind: "commander" }
  /** nobody to wake: the message is between people, or names agents not in the conversation */
  | { kind: "nobody"; reason: "between-people" | "not-addressed" | "agents-outside" };

/**
 * `auto` (the default) answers every message that addresses nobody, however many people
 * are here: a request typed without `@commander` must not vanish unanswered. People talk
 * among themselves by mentioning each other, and a message that mentions only people
 * wakes no agent. `always` is the same rule under its older name; `when_addressed`
 * answers only `@commander`, and the composer says so.
 */
export function addressees(input: {
  mode: CommanderReplyMode;
  mentionedAgents: readonly string[];
  mentionedPeople: readonly string[];
  outsideAgents: readonly string[];
}): Addressees {
  if (input.mentionedAgents.length > 0) return { kind: "agents", handles: [...input.mentionedAgents] };
  if (input.outsideAgents.length > 0) return { kind: "nobody", reason: "agents-outside" };
  if (input.mentionedPeople.length > 0) return { kind: "nobody", reason: "between-people" };
  switch (input.mode) {
    case "auto":
    case "always":
      return { kind: "commander" };
    case "when_addressed":
      return { kind: "nobody", reason: "not-addressed" };
    default: {
      const exhaustive: never = input.mode;
      return exhaustive;
    }
  }
}
