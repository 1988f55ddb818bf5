"use client";
import { memo, useState, type KeyboardEvent } from "react";
import { useFormatter, useTranslations } from "next-intl";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { MAX_MESSAGE_CHARS } from "@/server/protocol/limits.ts";
import { api } from "../api-client.ts";
import { Avatar } from "../ui/avatar.tsx";
import { AddReactionButton, ReactionChips } from "./message-reactions.tsx";
import { Badge, type Tone } from "../ui/badge.tsx";
import { AttachmentList } from "./attachment-list.tsx";
import { FormCard } from "./form-card.tsx";
import { Markdown } from "./markdown.tsx";
import { PLAN_TONE } from "./step-status.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { CopyButton } from "./copy-button.tsx";
import { OutcomeAnswerLink } from "./outcome-answer-link.tsx";
import { MessageText } from "./notice-text.tsx";
import { browserTimeZone } from "../time-zone.ts";
import { useErrorText } from "../error-text.ts";

// the badge's words are messages.kind.<kind>
const KIND_TONE = {
  dispatch: "blue",
  result: "green",
  decision: "amber",
  plan: "accent",
  error: "red",
  form: "amber",
  stopped: "zinc",
} as const satisfies Partial<Record<MessageDTO["kind"], Tone>>;
type LabelledKind = keyof typeof KIND_TONE;
const isLabelled = (kind: MessageDTO["kind"]): kind is LabelledKind => kind in KIND_TONE;

/**
 * The commander's closing message wears the plan's outcome (completed, partial, failed,
 * cancelled) in its colour; a note about one step that recovered is an update.
 */
function OutcomeBadge({ message }: { message: MessageDTO }) {
  const t = useTranslations("messages");
  const status = useConversationStore((state) => (message.planId ? state.plans[message.planId]?.status : undefined));
  if (message.stepId !== null || !status) return <Badge tone="green">{t("update")}</Badge>;
  return (
    <span data-testid="plan-outcome" data-outcome={status}>
      <Badge tone={PLAN_TONE[status]}>{t("planOutcome", { status })}</Badge>
    </span>
  );
}

export function Timestamp({ iso }: { iso: string }) {
  const format = useFormatter();
  const date = new Date(iso);
  const timeZone = browserTimeZone();
  return (
    <time
      dateTime={iso}
      title={format.dateTime(date, { dateStyle: "medium", timeStyle: "medium", timeZone })}
      suppressHydrationWarning
      className="text-xs text-zinc-500"
    >
      {format.dateTime(date, { hour: "2-digit", minute: "2-digit", timeZone })}
    </time>
  );
}

// full strength, not dimmed with opacity: dimmed, these small labels fall below AA contrast
const ACTION_CLASS =
  "rounded px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200 focus-visible:outline-2 focus-visible:outline-accent dark:text-zinc-300 dark:hover:bg-zinc-700";

/** Edit and delete, for the author's own messages. The server checks the author again; its answer updates the list. */
function OwnMessageActions({ message, onEdit }: { message: MessageDTO; onEdit: () => void }) {
  const t = useTranslations("messages");
  const errorText = useErrorText();
  const upsertMessage = useConversationStore((state) => state.upsertMessage);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState("");
  async function remove() {
    try {
      const { message: tombstone } = await api.conversations.deleteMessage({
        conversationId: message.conversationId,
        messageId: message.id,
      });
      upsertMessage(tombstone);
    } catch (caught) {
      setError(errorText(caught, t("deleteFailed")));
      setConfirming(false);
    }
  }
  if (confirming) {
    return (
      <span className="flex items-center gap-1 text-xs" role="group" aria-label={t("confirmDeletion")}>
        {t("deleteQuestion")}
        <button type="button" className={`${ACTION_CLASS} text-red-700 dark:text-red-300`} onClick={() => void remove()}>
          {t("delete")}
        </button>
        <button type="button" className={ACTION_CLASS} onClick={() => setConfirming(false)}>
          {t("keep")}
        </button>
      </span>
    );
  }
  return (
    <>
      <button type="button" className={ACTION_CLASS} onClick={onEdit} aria-label={t("editMessage")}>
        {t("edit")}
      </button>
      <button type="button" className={ACTION_CLASS} onClick={() => setConfirming(true)} aria-label={t("deleteMessage")}>
        {t("delete")}
      </button>
      {error ? (
        <span role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </span>
      ) : null}
    </>
  );
}

function EditBox({ message, onDone }: { message: MessageDTO; onDone: () => void }) {
  const t = useTranslations("messages");
  const errorText = useErrorText();
  const upsertMessage = useConversationStore((state) => state.upsertMessage);
  const [text, setText] = useState(message.body);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState("");
  async function save() {
    const body = text.trim();
    if (!body) return setError(t("emptyEdit"));
    if (body === message.body) return onDone();
    setSaving(true);
    try {
      const { message: edited } = await api.conversations.editMessage(
        { conversationId: message.conversationId, messageId: message.id },
        { body },
      );
      upsertMessage(edited);
      onDone();
    } catch (caught) {
      setError(errorText(caught, t("saveFailed")));
    } finally {
      setSaving(false);
    }
  }
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape") {
      event.preventDefault();
      onDone();
    } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save();
    }
  }
  return (
    <div className="mt-1">
      <textarea
        autoFocus
        aria-label={t("editMessage")}
        value={text}
        maxLength={MAX_MESSAGE_CHARS}
        onChange={(event) => {
          setText(event.target.value);
          setError("");
        }}
        onKeyDown={onKeyDown}
        rows={Math.min(10, Math.max(2, text.split("\n").length))}
        className="w-full resize-y rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30 dark:border-zinc-700 dark:bg-zinc-900"
      />
      {error ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <div className="mt-1 flex items-center gap-2 text-xs">
        <button type="button" className={`${ACTION_CLASS} font-medium`} disabled={saving} onClick={() => void save()}>
          {t("save")}
        </button>
        <button type="button" className={ACTION_CLASS} onClick={onDone}>
          {t("cancel")}
        </button>
        <span className="text-zinc-500">{t("editKeys")}</span>
      </div>
    </div>
  );
}

/** The id of a message's element: what `#message-<id>` links scroll to and focus. */
export const messageElementId = (messageId: string) => `message-${messageId}`;

export const MessageItem = memo(function MessageItem({
  message,
  currentUserId,
  highlighted = false,
  continued = false,
}: {
  message: MessageDTO;
  currentUserId: string;
  /** the message a search result opened */
  highlighted?: boolean;
  /** it continues the previous message's block (message-grouping.ts): name and avatar are not repeated */
  continued?: boolean;
}) {
  const t = useTranslations("messages");
  const format = useFormatter();
  const [editing, setEditing] = useState(false);
  const name = message.author?.name ?? (message.authorKind === "system" ? "Baton" : t("unknownAuthor"));

  const isAgent = message.authorKind === "agent";
  const mine = message.authorKind === "user" && message.author?.id === currentUserId;
  const deleted = message.deletedAt !== null;
  return (
    <li
      id={messageElementId(message.id)}
      data-testid="message"
      data-id={message.id}
      data-kind={message.kind}
      data-author={message.author?.handle ?? message.author?.name ?? "system"}
      data-highlighted={highlighted ? "true" : undefined}
      data-continued={continued ? "true" : undefined}
      tabIndex={highlighted ? -1 : undefined}
      className={`group flex gap-3 px-4 ${continued ? "py-0.5" : "py-2"} hover:bg-zinc-50 dark:hover:bg-zinc-900/50 ${message.kind === "error" ? "bg-red-50/50 dark:bg-red-950/20" : ""} ${highlighted ? "bg-amber-50 ring-2 ring-amber-400 ring-inset dark:bg-amber-950/30" : ""}`}
    >
      {continued ? (
        <span aria-hidden className="w-8 shrink-0" />
      ) : (
        <Avatar name={isAgent ? (message.author?.handle ?? name) : name} kind={message.authorKind} />
      )}
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          {/* a continued block still names its author to screen readers */}
          <span data-testid="author-name" className={continued ? "sr-only" : "text-sm font-semibold"}>
            {name}
          </span>
          {isAgent && message.author?.handle && !continued ? <span className="text-xs text-zinc-500">@{message.author.handle}</span> : null}
          {isAgent && !continued ? (
            <Badge tone={message.author?.role === "commander" ? "accent" : "neutral"}>
              {message.author?.role === "commander" ? t("commander") : t("agent")}
            </Badge>
          ) : null}
          {mine && !continued ? <Badge tone="zinc">{t("you")}</Badge> : null}
          {isLabelled(message.kind) ? <Badge tone={KIND_TONE[message.kind]}>{t(`kind.${message.kind}`)}</Badge> : null}
          {message.kind === "outcome" ? <OutcomeBadge message={message} /> : null}
          <Timestamp iso={message.createdAt} />
          {message.editedAt && !deleted ? (
            <span
              className="text-xs text-zinc-500"
              data-testid="edited"
              title={format.dateTime(new Date(message.editedAt), { dateStyle: "medium", timeStyle: "medium", timeZone: browserTimeZone() })}
            >
              {t("edited")}
            </span>
          ) : null}
          {!deleted && !editing ? (
            <span className="ml-auto flex items-center gap-1">
              <AddReactionButton message={message} currentUserId={currentUserId} className={ACTION_CLASS} />
              <CopyButton label={t("copyMessage")} text={() => message.body} className={ACTION_CLASS} />
              {mine ? <OwnMessageActions message={message} onEdit={() => setEditing(true)} /> : null}
            </span>
          ) : null}
        </div>
        {deleted ? (
          <p className="text-sm text-zinc-500 italic" data-testid="tombstone">
            {t("deleted")}
          </p>
        ) : editing ? (
          <EditBox message={message} onDone={() => setEditing(false)} />
        ) : (
          <>
            {message.kind === "dispatch" && message.mentions.length > 0 ? (
              <p className="mt-0.5 text-xs text-zinc-500">
                {t("handingStep", { handles: message.mentions.map((m) => `@${m.handle}`).join(", ") })}
              </p>
            ) : null}
            <MessageText message={message} />
            {message.kind === "stopped" ? (
              <p className="mt-0.5 text-xs text-zinc-600 italic dark:text-zinc-400" data-testid="stopped-note">
                {t("stoppedNote")}
              </p>
            ) : null}
            {message.kind === "outcome" ? <OutcomeAnswerLink message={message} /> : null}
            {message.formId ? <FormCard formId={message.formId} /> : null}
            <AttachmentList conversationId={message.conversationId} attachments={message.attachments} />
            <ReactionChips message={message} currentUserId={currentUserId} />
          </>
        )}
      </div>
    </li>
  );
});

/** Text of a live run as it streams in; replaced by the stored message when the run ends. */
export function StreamingItem({ handle, text }: { handle: string; text: string }) {
  const t = useTranslations("messages");
  return (
    <li data-testid="streaming" className="flex gap-3 px-4 py-2" aria-live="off">
      <Avatar name={handle} kind="agent" />
      <div className="min-w-0 flex-1">
        <div className="flex items-baseline gap-2">
          <span className="text-sm font-semibold">@{handle}</span>
          <span className="animate-soft-pulse text-xs text-zinc-500">{t("writing")}</span>
        </div>
        <Markdown text={text} />
      </div>
    </li>
  );
}
