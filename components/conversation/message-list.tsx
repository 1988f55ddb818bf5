"use client";
import { useEffect, useRef } from "react";
import { useConversationStore } from "../stores/conversation-store.ts";
import { MessageItem, StreamingItem } from "./message-item.tsx";

/** Messages in order, then the live streams; sticks to the bottom unless the reader scrolled up. */
export function MessageList({ currentUserId }: { currentUserId: string }) {
  const messages = useConversationStore((s) => s.messages);
  const streams = useConversationStore((s) => s.streams);
  const runs = useConversationStore((s) => s.runs);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [messages, streams]);

  const onScroll = () => {
    const element = scroller.current;
    if (element) pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
  };

  const live = Object.entries(streams).filter(([, text]) => text.length > 0);

  return (
    <div ref={scroller} onScroll={onScroll} tabIndex={0} className="min-h-0 flex-1 overflow-y-auto">
      {messages.length === 0 && live.length === 0 ? (
        <p className="p-8 text-center text-sm text-zinc-500">No messages yet. Ask the commander for something, or @-mention an agent.</p>
      ) : null}
      <ol aria-label="Messages" aria-live="polite" className="py-2" data-testid="message-list">
        {messages.map((message) => (
          <MessageItem key={message.id} message={message} currentUserId={currentUserId} />
        ))}
        {live.map(([runId, text]) => (
          <StreamingItem key={runId} handle={runs[runId]?.agentHandle ?? "agent"} text={text} />
        ))}
      </ol>
    </div>
  );
}
