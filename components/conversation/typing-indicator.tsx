"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { getSocket } from "../socket-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { afterMessageFrom, stillTyping, TYPING_ANNOUNCE_MS, TYPING_EXPIRES_MS, type Typist } from "./typing.ts";

/** A callback for every keystroke that tells the conversation "I am typing" at most every few seconds. */
export function useAnnounceTyping(conversationId: string): () => void {
  const last = useRef(0);
  return useCallback(() => {
    const now = Date.now();
    if (now - last.current < TYPING_ANNOUNCE_MS) return;
    last.current = now;
    getSocket().emit("typing-started", { conversationId });
  }, [conversationId]);
}

/** Who else is typing in this conversation (never oneself, also not from one's other tabs). */
export function TypingIndicator({ conversationId, currentUserId }: { conversationId: string; currentUserId: string }) {
  const t = useTranslations("conversation");
  const [typists, setTypists] = useState<Record<string, Typist>>({});
  useEffect(() => {
    const socket = getSocket();
    const onTyping = (typing: { conversationId: string; userId: string; name: string }) => {
      if (typing.conversationId !== conversationId || typing.userId === currentUserId) return;
      setTypists((current) => ({ ...current, [typing.userId]: { name: typing.name, until: Date.now() + TYPING_EXPIRES_MS } }));
    };
    socket.on("typing-started", onTyping);
    return () => {
      socket.off("typing-started", onTyping);
    };
  }, [conversationId, currentUserId]);
  // a person's message ends their "typing…" at once, not up to TYPING_EXPIRES_MS later
  useEffect(
    () =>
      useConversationStore.subscribe((state, previous) => {
        const last = state.messages.at(-1);
        if (!last || last === previous.messages.at(-1) || last.authorKind !== "user") return;
        setTypists((current) => afterMessageFrom(current, last.author?.id));
      }),
    [],
  );
  const anyone = Object.keys(typists).length > 0;
  useEffect(() => {
    if (!anyone) return;
    const timer = setInterval(() => setTypists((current) => stillTyping(current, Date.now())), 1_000);
    return () => clearInterval(timer);
  }, [anyone]);
  const names = Object.values(typists).map((typist) => typist.name);
  return (
    <p aria-live="polite" data-testid="typing-indicator" className="min-h-4 truncate text-xs text-zinc-500">
      {names.length > 0 ? t("typing", { count: names.length, first: names[0], second: names[1] ?? "" }) : ""}
    </p>
  );
}
