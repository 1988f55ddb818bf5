"use client";
import { Fragment, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useConversationStore } from "../stores/conversation-store.ts";
import { MessageItem, messageElementId, StreamingItem } from "./message-item.tsx";
import { useTabNotifications } from "./use-tab-notifications.ts";
import { useEarlierMessages } from "./use-earlier-messages.ts";
import { continuesGroup } from "./message-grouping.ts";
import { unreadSince } from "./unread.ts";
import { useReadMarker } from "./use-read-marker.ts";

const NEAR_BOTTOM_PX = 80;

/** `#message-<id>`: a search result (or a link) opening the conversation at one message */
const MESSAGE_HASH = /^#message-([\w-]{1,128})$/;

/**
 * Messages in order, then the live streams; sticks to the bottom unless the reader
 * scrolled up. On open, a "N new messages" divider goes above the first message since
 * the reader's mark (`readMark`), scrolled into view; messages from others that arrive
 * while scrolled up get the divider too. Either way a "jump to latest" button counts them.
 */
export function MessageList({
  currentUserId,
  readMark,
}: {
  currentUserId: string;
  /** how far the reader had read when the page opened (null: never) */
  readMark?: { conversationId: string; lastReadAt: string | null };
}) {
  const t = useTranslations("messages");
  const messages = useConversationStore((s) => s.messages);
  const storeConversation = useConversationStore((s) => s.conversationId);
  const streams = useConversationStore((s) => s.streams);
  const runs = useConversationStore((s) => s.runs);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const seen = useRef<Set<string> | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const [unread, setUnread] = useState<{ firstId: string | null; count: number }>({ firstId: null, count: 0 });
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const handledHash = useRef<string | null>(null);
  /** the scroller's distance from its bottom when earlier messages were asked for: kept as they arrive above */
  const keepFromBottom = useRef<number | null>(null);
  const { hasEarlier, state: earlier, loadEarlier } = useEarlierMessages();
  const earlierPhase = earlier.phase;
  useTabNotifications(currentUserId);
  useReadMarker({ conversationId: readMark?.conversationId ?? storeConversation ?? "", atBottom });
  /** the open's divider: placed once, when this conversation's messages are in the store */
  const placedMark = useRef(false);
  const markDivider = useRef<string | null>(null);
  /** what the open's divider says: how many were missed, even once the reader reached the bottom */
  const [missed, setMissed] = useState<{ firstId: string | null; count: number }>({ firstId: null, count: 0 });

  useEffect(() => {
    if (!readMark || placedMark.current || storeConversation !== readMark.conversationId) return;
    placedMark.current = true;
    const since = unreadSince(messages, { lastReadAt: readMark.lastReadAt, currentUserId });
    if (since.count === 0) return;
    markDivider.current = since.firstId;
    // the divider is state of this render's data, set once the store holds it
    const timer = setTimeout(() => {
      setUnread(since);
      setMissed(since);
    }, 0);
    return () => clearTimeout(timer);
  }, [readMark, storeConversation, messages, currentUserId]);

  // the open's divider comes into view (at the top), unless everything fits anyway
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !unread.firstId || unread.firstId !== markDivider.current) return;
    markDivider.current = null;
    const divider = element.querySelector<HTMLElement>('[data-testid="unread-divider"]');
    if (!divider) return;
    element.scrollTop += divider.getBoundingClientRect().top - element.getBoundingClientRect().top - 8;
    const bottom = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
    pinned.current = bottom;
    setAtBottom(bottom);
  }, [unread.firstId]);

  const showEarlier = () => {
    if (earlierPhase === "loading") return;
    const element = scroller.current;
    if (element) keepFromBottom.current = element.scrollHeight - element.scrollTop;
    pinned.current = false;
    void loadEarlier();
  };

  // earlier messages arrived above: the ones the reader was looking at stay where they were
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || keepFromBottom.current === null) return;
    element.scrollTop = element.scrollHeight - keepFromBottom.current;
    keepFromBottom.current = null;
  }, [messages]);

  // what arrived while the reader was scrolled up
  useEffect(() => {
    const known = seen.current;
    seen.current = new Set(messages.map((message) => message.id));
    if (!known || pinned.current) return;
    // new ones come after the newest already shown; a page of earlier ones is not news
    const newest = messages.findLast((message) => known.has(message.id))?.createdAt ?? "";
    const arrived = messages.filter(
      (message) => !known.has(message.id) && message.createdAt > newest && message.author?.id !== currentUserId,
    );
    if (arrived.length === 0) return;
    // a later render, not this effect's: the count is state derived from the store's change
    const timer = setTimeout(
      () =>
        setUnread((current) => ({ firstId: current.count === 0 ? arrived[0].id : current.firstId, count: current.count + arrived.length })),
      0,
    );
    return () => clearTimeout(timer);
  }, [messages, currentUserId]);

  useEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [messages, streams]);

  // open at the message a search result points to, once per link
  useEffect(() => {
    const open = () => {
      const match = MESSAGE_HASH.exec(window.location.hash);
      if (!match || handledHash.current === window.location.hash) return;
      const target = document.getElementById(messageElementId(match[1]));
      if (!target) {
        // an older message than the newest pages: page back until it is here, or nothing is left
        if (hasEarlier && earlierPhase === "idle") void loadEarlier();
        return;
      }
      handledHash.current = window.location.hash;
      pinned.current = false;
      setAtBottom(false);
      setHighlighted(match[1]);
      target.scrollIntoView({ block: "center" });
    };
    open();
    window.addEventListener("hashchange", open);
    return () => window.removeEventListener("hashchange", open);
  }, [messages, hasEarlier, earlierPhase, loadEarlier]);

  // focus moves to the linked message once it is focusable (its tabIndex comes with the highlight), so keyboard and screen reader start there
  useEffect(() => {
    if (highlighted) document.getElementById(messageElementId(highlighted))?.focus({ preventScroll: true });
  }, [highlighted]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const bottom = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
    pinned.current = bottom;
    if (bottom !== atBottom) setAtBottom(bottom);
    if (bottom && unread.count > 0) setUnread((current) => ({ ...current, count: 0 }));
  };

  const jumpToLatest = () => {
    const element = scroller.current;
    if (!element) return;
    pinned.current = true;
    setAtBottom(true);
    setUnread((current) => ({ ...current, count: 0 }));
    element.scrollTo({ top: element.scrollHeight, behavior: "smooth" });
  };

  const live = Object.entries(streams).filter(([, text]) => text.length > 0);

  return (
    <div className="relative flex min-h-0 flex-1 flex-col">
      <div ref={scroller} onScroll={onScroll} tabIndex={0} className="min-h-0 flex-1 overflow-y-auto" data-testid="message-scroller">
        {messages.length === 0 && live.length === 0 ? <p className="p-8 text-center text-sm text-zinc-500">{t("empty")}</p> : null}
        {hasEarlier ? (
          <div className="flex flex-col items-center gap-1 pt-3" data-testid="earlier-messages">
            <button
              type="button"
              onClick={showEarlier}
              // not `disabled` while loading: a disabled button drops the keyboard's focus
              aria-disabled={earlierPhase === "loading"}
              className="rounded-full border border-zinc-300 px-3 py-1 text-xs text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent aria-disabled:opacity-60 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
            >
              {earlierPhase === "loading" ? t("loadingEarlier") : t("showEarlier")}
            </button>
            {earlier.phase === "failed" ? (
              <p role="alert" className="text-xs text-red-700 dark:text-red-300">
                {t("earlierFailed", { reason: earlier.reason })}
              </p>
            ) : null}
          </div>
        ) : null}
        <ol aria-label={t("messages")} aria-live="polite" className="py-2" data-testid="message-list">
          {messages.map((message, index) => (
            <Fragment key={message.id}>
              {message.id === unread.firstId ? (
                <li data-testid="unread-divider" className="my-1 flex items-center gap-2 px-4">
                  <span aria-hidden className="h-px flex-1 bg-red-400" />
                  <span className="text-xs font-medium text-red-700 dark:text-red-300">
                    {t("newMessagesCount", { count: message.id === missed.firstId ? missed.count : unread.count })}
                  </span>
                  <span aria-hidden className="h-px flex-1 bg-red-400" />
                </li>
              ) : null}
              <MessageItem
                message={message}
                currentUserId={currentUserId}
                highlighted={message.id === highlighted}
                continued={message.id !== unread.firstId && continuesGroup(messages[index - 1], message)}
              />
            </Fragment>
          ))}
          {live.map(([runId, text]) => (
            <StreamingItem key={runId} handle={runs[runId]?.agentHandle ?? "agent"} text={text} />
          ))}
        </ol>
      </div>
      {!atBottom ? (
        <button
          type="button"
          onClick={jumpToLatest}
          className="absolute right-4 bottom-3 rounded-full bg-accent px-3 py-1.5 text-xs font-medium text-white shadow-lg hover:bg-accent-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          {unread.count > 0 ? t("jumpToLatestNew", { count: unread.count }) : t("jumpToLatest")}
        </button>
      ) : null}
    </div>
  );
}
