"use client";
import { useCallback, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { api, ApiError } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { useErrorText } from "../error-text.ts";

export type EarlierState = { phase: "idle" } | { phase: "loading" } | { phase: "failed"; reason: string };

/**
 * Pages back through a long conversation: the snapshot holds only the newest messages,
 * and each call puts the page before the oldest one shown. One request at a time; a
 * failure is kept to show, and the next call tries again.
 */
export function useEarlierMessages() {
  const hasEarlier = useConversationStore((s) => s.hasEarlierMessages);
  const [state, setState] = useState<EarlierState>({ phase: "idle" });
  const inFlight = useRef(false);
  const t = useTranslations("errors");
  const errorText = useErrorText();

  const loadEarlier = useCallback(async () => {
    const { conversationId, messages, prependMessages } = useConversationStore.getState();
    const oldest = messages[0];
    if (inFlight.current || !conversationId || !oldest) return;
    inFlight.current = true;
    setState({ phase: "loading" });
    try {
      const page = await api.conversations.earlierMessages({ conversationId }, { before: oldest.id });
      prependMessages({ conversationId, ...page });
      setState({ phase: "idle" });
    } catch (caught) {
      setState({ phase: "failed", reason: caught instanceof ApiError ? errorText(caught, caught.message) : t("noAnswer") });
    } finally {
      inFlight.current = false;
    }
  }, [errorText, t]);

  return { hasEarlier, state, loadEarlier };
}
