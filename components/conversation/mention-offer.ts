/**
 * Which typed `@handle`s name an agent of the workspace that is not in this conversation,
 * so the composer offers to add it while the person is still typing (the server answers
 * the same question after sending, with the same shared tokeniser: protocol/mentions.ts).
 */
import { personHandles, resolveMentions, tokenizeMentions } from "@/server/protocol/mentions.ts";

export interface MentionDirectory {
  /** handles of the agents in this conversation (as loaded, plus any added since) */
  conversationAgents: readonly string[];
  /** names of the people in this conversation: a person's handle is never an agent elsewhere */
  people: readonly { name: string }[];
  /** handles of every agent of the workspace; null until loaded */
  workspaceAgents: readonly string[] | null;
}

/** Typed handles that are neither this conversation's agents nor its people: worth asking the workspace about. */
export function unknownHandles(text: string, directory: Pick<MentionDirectory, "conversationAgents" | "people">): string[] {
  const people = new Set(directory.people.flatMap((person) => personHandles(person.name)));
  return tokenizeMentions(text).filter((handle) => !directory.conversationAgents.includes(handle) && !people.has(handle));
}

/** Agents of the workspace the text mentions that are not in this conversation (none until the workspace is known). */
export function outsideAgentsTyped(text: string, directory: MentionDirectory): string[] {
  if (!directory.workspaceAgents) return [];
  return resolveMentions(text, {
    conversationAgents: directory.conversationAgents,
    people: directory.people.flatMap((person) => personHandles(person.name)),
    workspaceAgents: directory.workspaceAgents,
  }).outsideAgents;
}
