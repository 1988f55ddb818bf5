/**
 * Unsent text, per conversation, in this browser's localStorage: a reload, a crash or
 * switching conversations keeps it. Storage that is full or disabled loses only drafts.
 */
const PREFIX = "baton:draft:";
export const MAX_DRAFT_CHARS = 20_000;

export function loadDraft(conversationId: string): string {
  try {
    return window.localStorage.getItem(PREFIX + conversationId) ?? "";
  } catch {
    return "";
  }
}

export function saveDraft(conversationId: string, text: string): void {
  try {
    if (text.trim()) window.localStorage.setItem(PREFIX + conversationId, text.slice(0, MAX_DRAFT_CHARS));
    else window.localStorage.removeItem(PREFIX + conversationId);
  } catch {
    // storage full or disabled: the draft lives only in the composer
  }
}
