/**
 * The one tokeniser of people's messages for `@handle` mentions, shared by the composer
 * and the server (DESIGN rule 2): a typed `@handle` of an agent in the conversation is a
 * mention exactly as if it were picked from the autocomplete. Only people's messages are
 * tokenised; agents' and tools' text never is, so agents cannot start each other by
 * talking about each other.
 *
 * A handle counts where it stands on its own: at the start or after a space or
 * punctuation (not inside an e-mail address), and outside `code`.
 */

export const HANDLE_PATTERN = /^[a-z0-9_-]{1,40}$/;

const CODE_BLOCK = /```[\s\S]*?(```|$)|`[^`\n]*`/g;
const MENTION = /(^|[^\w.@/-])@([a-z0-9_-]{1,40})(?![\w-])/gi;

/** Every distinct `@handle` written in `body`, lower-cased, in order of first appearance. */
export function tokenizeMentions(body: string): string[] {
  const prose = body.replace(CODE_BLOCK, " ");
  const handles: string[] = [];
  for (const match of prose.matchAll(MENTION)) {
    const handle = match[2].toLowerCase();
    if (!handles.includes(handle)) handles.push(handle);
  }
  return handles;
}

export interface ResolvedMentions {
  /** agents of this conversation the message addresses */
  agents: string[];
  /** people of this conversation the message addresses */
  people: string[];
  /** agents of the workspace that are not in this conversation */
  outsideAgents: string[];
}

/** Sorts the message's handles into this conversation's agents, its people, and agents elsewhere. */
export function resolveMentions(
  body: string,
  known: { conversationAgents: readonly string[]; people: readonly string[]; workspaceAgents: readonly string[] },
): ResolvedMentions {
  const resolved: ResolvedMentions = { agents: [], people: [], outsideAgents: [] };
  for (const handle of tokenizeMentions(body)) {
    if (known.conversationAgents.includes(handle)) resolved.agents.push(handle);
    else if (known.people.includes(handle)) resolved.people.push(handle);
    else if (known.workspaceAgents.includes(handle)) resolved.outsideAgents.push(handle);
  }
  return resolved;
}

/** The handles a person can be mentioned by: their name without spaces, and their first name. */
export function personHandles(name: string): string[] {
  const words = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^a-z0-9_-]/g, ""))
    .filter(Boolean);
  if (words.length === 0) return [];
  return [...new Set([words.join(""), words[0]])].filter((handle) => HANDLE_PATTERN.test(handle));
}
