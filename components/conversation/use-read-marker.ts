"use client";
/**
 * Moves the reader's mark (Membership.lastReadAt) forward: once when the conversation
 * opens, then whenever newer messages are on screen while the tab has focus and the list
 * sits at its bottom. Calls are debounced, and never repeat a mark already sent.
 */
import { useEffect, useRef } from "react";
import { useConversationStore } from "../stores/conversation-store.ts";
import { api } from "../api-client.ts";

const DEBOUNCE_MS = 800;

export function useReadMarker({ conversationId, atBottom }: { conversationId: string; atBottom: boolean }) {
  const loaded = useConversationStore((s) => s.conversationId === conversationId);
  const newest = useConversationStore((s) => (s.conversationId === conversationId ? (s.messages.at(-1)?.createdAt ?? null) : null));
  const sent = useRef<string | null>(null);
  const opened = useRef(false);

  useEffect(() => {
    if (!loaded) return;
    const send = () => {
      const upTo = newest ?? new Date().toISOString();
      if (sent.current !== null && upTo <= sent.current) return;
      sent.current = upTo;
      // a lost mark only means the line shows again next time: nothing to tell the reader
      api.conversations.markRead({ conversationId }, { upTo }).catch(() => {
        sent.current = null;
      });
    };
    const reading = () => document.visibilityState === "visible" && document.hasFocus() && atBottom;
    // opening the conversation reads it; afterwards only what is seen counts
    if (!opened.current) {
      opened.current = true;
      send();
      return;
    }
    if (!reading()) {
      const onFocus = () => reading() && send();
      window.addEventListener("focus", onFocus);
      return () => window.removeEventListener("focus", onFocus);
    }
    const timer = window.setTimeout(send, DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [loaded, newest, atBottom, conversationId]);
}
