"use client";
/**
 * The tab tells you what is waiting while you look elsewhere: its title counts the
 * messages that arrived while the tab was hidden and says when a form waits, and —
 * when the person allowed it, asked on their click, never on load — a browser
 * notification announces a new form or an agent answering their mention.
 */
import { useEffect, useState } from "react";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { useConversationStore, type ConversationData } from "../stores/conversation-store.ts";

/** The tab's title: unread count first, then "form waiting", then the page's own title. */
export function tabTitle({ base, unread, formsWaiting }: { base: string; unread: number; formsWaiting: number }): string {
  const parts = [
    unread > 0 ? `(${unread})` : "",
    formsWaiting > 0 ? (formsWaiting === 1 ? "Form waiting ·" : `${formsWaiting} forms waiting ·`) : "",
  ];
  return [...parts.filter(Boolean), base].join(" ");
}

/** An agent's message answering one of `userId`'s mentions of it in this conversation. */
export function answersMention(message: MessageDTO, messages: MessageDTO[], userId: string): boolean {
  if (message.authorKind !== "agent" || !message.author?.handle || message.kind === "dispatch") return false;
  // a question put to you (a form) is not an answer: "A form is waiting for you" says it
  if (message.kind === "form" || message.formId !== null) return false;
  const handle = message.author.handle;
  return messages.some(
    (earlier) =>
      earlier.authorKind === "user" &&
      earlier.author?.id === userId &&
      earlier.deletedAt === null &&
      earlier.createdAt <= message.createdAt &&
      earlier.mentions.some((mention) => mention.handle === handle),
  );
}

const openForms = (state: ConversationData) => Object.values(state.forms).filter((form) => form.status === "open");

function notify(title: string, body: string, tag: string) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  if (!document.hidden && document.hasFocus()) return;
  try {
    new Notification(title, { body: body.slice(0, 180), tag });
  } catch {
    // some browsers only allow notifications from a service worker: the title still says it
  }
}

export function useTabNotifications(currentUserId: string) {
  const [unread, setUnread] = useState(0);
  const formsWaiting = useConversationStore((state) => openForms(state).length);
  // the conversation's own name, renamed live ("Launch plan · Baton")
  const conversationTitle = useConversationStore((state) => state.title);

  useEffect(() => {
    const onVisible = () => {
      if (!document.hidden) setUnread(0);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, []);

  useEffect(
    () =>
      useConversationStore.subscribe((state, previous) => {
        if (state.conversationId !== previous.conversationId) return setUnread(0);
        if (state.messages !== previous.messages) {
          const known = new Set(previous.messages.map((message) => message.id));
          const arrived = state.messages.filter((message) => !known.has(message.id) && message.author?.id !== currentUserId);
          if (arrived.length && document.hidden) setUnread((count) => count + arrived.length);
          for (const message of arrived) {
            if (answersMention(message, state.messages, currentUserId)) {
              notify(`@${message.author?.handle} answered you`, message.body, `answer-${message.id}`);
            }
          }
        }
        if (state.forms !== previous.forms) {
          const before = new Set(openForms(previous).map((form) => form.id));
          for (const form of openForms(state)) {
            if (!before.has(form.id)) notify("A form is waiting for you", form.spec.title, `form-${form.id}`);
          }
        }
      }),
    [currentUserId],
  );

  useEffect(() => {
    const before = document.title.replace(/^(\(\d+\) )?((\d+ forms|Form) waiting · )?/, "");
    const base = conversationTitle ? `${conversationTitle} · Baton` : before;
    document.title = tabTitle({ base, unread, formsWaiting });
    return () => {
      document.title = before;
    };
  }, [unread, formsWaiting, conversationTitle]);
}
