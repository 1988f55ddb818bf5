"use client";
import { memo } from "react";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Badge, type Tone } from "../ui/badge.tsx";
import { AttachmentList } from "./attachment-list.tsx";
import { FormCard } from "./form-card.tsx";
import { Markdown } from "./markdown.tsx";
import { PLAN_TONE } from "./step-status.ts";
import { useConversationStore } from "../stores/conversation-store.ts";

const KIND_LABEL: Partial<Record<MessageDTO["kind"], { label: string; tone: Tone }>> = {
  dispatch: { label: "dispatch", tone: "blue" },
  result: { label: "result", tone: "green" },
  decision: { label: "decision", tone: "amber" },
  plan: { label: "plan", tone: "accent" },
  error: { label: "error", tone: "red" },
  form: { label: "needs input", tone: "amber" },
};

/**
 * The commander's closing message wears the plan's outcome (completed, partial, failed,
 * cancelled) in its colour; a note about one step that recovered is an update.
 */
function OutcomeBadge({ message }: { message: MessageDTO }) {
  const status = useConversationStore((state) => (message.planId ? state.plans[message.planId]?.status : undefined));
  if (message.stepId !== null || !status) return <Badge tone="green">update</Badge>;
  return (
    <span data-testid="plan-outcome" data-outcome={status}>
      <Badge tone={PLAN_TONE[status]}>plan {status}</Badge>
    </span>
  );
}

export function Timestamp({ iso }: { iso: string }) {
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={date.toLocaleString()} suppressHydrationWarning className="text-xs text-zinc-500">
      {date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
    </time>
  );
}

export const MessageItem = memo(function MessageItem({ message, currentUserId }: { message: MessageDTO; currentUserId: string }) {
  const name = message.author?.name ?? (message.authorKind === "system" ? "Baton" : "Unknown");
  const kind = KIND_LABEL[message.kind];
  const isAgent = message.authorKind === "agent";
  const mine = message.authorKind === "user" && message.author?.id === currentUserId;
  return (
    <li
      data-testid="message"
      data-id={message.id}
      data-kind={message.kind}
      data-author={message.author?.handle ?? message.author?.name ?? "system"}
      className={`group flex gap-3 px-4 py-2 hover:bg-zinc-50 dark:hover:bg-zinc-900/50 ${message.kind === "error" ? "bg-red-50/50 dark:bg-red-950/20" : ""}`}
    >
      <Avatar name={isAgent ? (message.author?.handle ?? name) : name} kind={message.authorKind} />
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <span className="text-sm font-semibold">{name}</span>
          {isAgent && message.author?.handle ? <span className="text-xs text-zinc-500">@{message.author.handle}</span> : null}
          {isAgent ? (
            <Badge tone={message.author?.role === "commander" ? "accent" : "neutral"}>
              {message.author?.role === "commander" ? "commander" : "agent"}
            </Badge>
          ) : null}
          {mine ? <Badge tone="zinc">you</Badge> : null}
          {kind ? <Badge tone={kind.tone}>{kind.label}</Badge> : null}
          {message.kind === "outcome" ? <OutcomeBadge message={message} /> : null}
          <Timestamp iso={message.createdAt} />
        </div>
        {message.kind === "dispatch" && message.mentions.length > 0 ? (
          <p className="mt-0.5 text-xs text-zinc-500">handing a step to {message.mentions.map((m) => `@${m.handle}`).join(", ")}</p>
        ) : null}
        <Markdown text={message.body} mentions={message.mentions.map((m) => m.handle)} />
        {message.formId ? <FormCard formId={message.formId} /> : null}
        <AttachmentList conversationId={message.conversationId} attachments={message.attachments} />
      </div>
    </li>
  );
});

/** Text of a live run as it streams in; replaced by the stored message when the run ends. */
export function StreamingItem({ handle, text }: { handle: string; text: string }) {
  return (
    <li data-testid="streaming" className="flex gap-3 px-4 py-2" aria-live="off">
      <Avatar name={handle} kind="agent" />
      <div className="min-w-0 flex-1">
        <div className="flex items-baseline gap-2">
          <span className="text-sm font-semibold">@{handle}</span>
          <span className="animate-soft-pulse text-xs text-zinc-500">writing…</span>
        </div>
        <Markdown text={text} />
      </div>
    </li>
  );
}
