/**
 * Who the composer's `@` autocomplete offers: the conversation's agents and people. A
 * person is inserted by their first handle (server/protocol/mentions.ts `personHandles`),
 * which the shared tokeniser reads back as the same person on the server.
 */
import { personHandles } from "@/server/protocol/mentions.ts";
import type { AgentInfo } from "../stores/conversation-store.ts";

export interface MentionCandidate {
  key: string;
  kind: "agent" | "person";
  handle: string;
  /** the agent's or person's display name */
  name: string;
}

export const MAX_MENTION_CANDIDATES = 8;

/**
 * An `@` being typed at the caret (the text before it ends with one): group 2 is the query
 * so far. Any case, like the shared tokeniser, which reads a typed `@Bo` as `@bo`.
 */
export const MENTION_QUERY = /(^|\s)@([a-z0-9_-]*)$/i;

/** Agents then people whose handle or name starts with `query` (any word of the name, case-insensitive). */
export function mentionCandidates(input: {
  query: string;
  agents: readonly AgentInfo[];
  people: readonly { id: string; name: string }[];
}): MentionCandidate[] {
  const query = input.query.toLowerCase();
  const matches = (handle: string, name: string) =>
    handle.startsWith(query) ||
    name
      .toLowerCase()
      .split(/\s+/)
      .some((word) => word.startsWith(query));
  const agents = input.agents
    .filter((agent) => matches(agent.handle, agent.name))
    .map((agent): MentionCandidate => ({ key: `agent:${agent.id}`, kind: "agent", handle: agent.handle, name: agent.name }));
  const people = input.people.flatMap((person): MentionCandidate[] => {
    const handle = personHandles(person.name)[0];
    return handle && matches(handle, person.name) ? [{ key: `person:${person.id}`, kind: "person", handle, name: person.name }] : [];
  });
  return [...agents, ...people].slice(0, MAX_MENTION_CANDIDATES);
}
