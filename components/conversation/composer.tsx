"use client";
import { useEffect, useMemo, useRef, useState, type ChangeEvent, type KeyboardEvent } from "react";
import { useTranslations } from "next-intl";
import type { AttachmentDTO } from "@/server/protocol/dto.ts";
import { api, ApiError } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { CloseIcon, FileIcon, PaperclipIcon } from "../ui/icons.tsx";
import { MAX_MESSAGE_CHARS, MAX_UPLOAD_BYTES } from "@/server/protocol/limits.ts";
import { tokenizeMentions } from "@/server/protocol/mentions.ts";
import { loadDraft, saveDraft } from "./drafts.ts";
import { outsideAgentsTyped, unknownHandles } from "./mention-offer.ts";
import { MENTION_QUERY, mentionCandidates, type MentionCandidate } from "./mention-candidates.ts";
import { MENTION_LISTBOX_ID, MentionPicker, mentionOptionId } from "./mention-picker.tsx";
import { NotificationsButton } from "./notifications-button.tsx";
import { TypingIndicator, useAnnounceTyping } from "./typing-indicator.tsx";
import { useErrorText } from "../error-text.ts";

/** What a person reads when a send failed: never the browser's raw "Failed to fetch". */
function sendFailure(
  caught: unknown,
  t: ReturnType<typeof useTranslations<"composer">>,
  errorText: (caught: unknown, fallback: string) => string,
): { text: string; retry: boolean } {
  if (caught instanceof ApiError) return { text: errorText(caught, caught.message), retry: caught.status >= 500 || caught.status === 429 };
  const offline = typeof navigator !== "undefined" && !navigator.onLine;
  return { text: offline ? t("notSentOffline") : t("notSentUnreachable"), retry: true };
}

/**
 * Mentions are structured: an agent picked from the autocomplete, or an agent of the
 * conversation whose `@handle` is typed in full (the same tokeniser as the server's),
 * is sent as a mention. A handle of an agent outside the conversation wakes nobody; the
 * composer offers to add it while it is typed (the workspace's agents are fetched the
 * first time an unknown handle appears) and again after sending (the server's answer).
 */
export function Composer({ conversationId, currentUserId }: { conversationId: string; currentUserId: string }) {
  // one composer per conversation: its text, draft and errors never cross over
  return <ConversationComposer key={conversationId} conversationId={conversationId} currentUserId={currentUserId} />;
}

function ConversationComposer({ conversationId, currentUserId }: { conversationId: string; currentUserId: string }) {
  const t = useTranslations("composer");
  const errorText = useErrorText();
  const agents = useConversationStore((s) => s.agents);
  const members = useConversationStore((s) => s.members);
  const upsertMessage = useConversationStore((s) => s.upsertMessage);
  const [text, setText] = useState("");
  const [mentioned, setMentioned] = useState<string[]>([]);
  const [query, setQuery] = useState<string | null>(null);
  const [highlight, setHighlight] = useState(0);
  const [attachments, setAttachments] = useState<AttachmentDTO[]>([]);
  const [uploading, setUploading] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const [canRetry, setCanRetry] = useState(false);
  /** agents outside the conversation the last sent message named (the server's answer) */
  const [sentOutside, setSentOutside] = useState<string[]>([]);
  /** agents added from the offer since the conversation was loaded */
  const [added, setAdded] = useState<string[]>([]);
  const [workspaceAgents, setWorkspaceAgents] = useState<string[] | null>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const announceTyping = useAnnounceTyping(conversationId);
  const fileInput = useRef<HTMLInputElement>(null);

  // the draft of this conversation survives a reload (restored after mount: the server knows nothing of it)
  useEffect(() => {
    const draft = loadDraft(conversationId);
    if (!draft) return;
    const timer = setTimeout(() => setText((current) => current || draft), 0);
    return () => clearTimeout(timer);
  }, [conversationId]);
  useEffect(() => {
    const timer = setTimeout(() => saveDraft(conversationId, text), 250);
    return () => clearTimeout(timer);
  }, [conversationId, text]);
  // back online: say so beside the kept message
  useEffect(() => {
    const onOnline = () => setError((current) => (current ? t("backOnline") : current));
    window.addEventListener("online", onOnline);
    return () => window.removeEventListener("online", onOnline);
  }, [t]);

  const conversationAgents = useMemo(() => [...new Set([...agents.map((agent) => agent.handle), ...added])], [agents, added]);
  const needWorkspace = workspaceAgents === null && unknownHandles(text, { conversationAgents, people: members }).length > 0;
  useEffect(() => {
    if (!needWorkspace) return;
    let live = true;
    api.account
      .agents()
      .then((answer) => live && setWorkspaceAgents(answer.agents.map((agent) => agent.handle)))
      // without the list there is no offer while typing; the server still answers after sending
      .catch(() => live && setWorkspaceAgents([]));
    return () => {
      live = false;
    };
  }, [needWorkspace]);
  const typedOutside = useMemo(
    () =>
      outsideAgentsTyped(text, { conversationAgents, people: members, workspaceAgents }).filter((handle) => !sentOutside.includes(handle)),
    [text, conversationAgents, members, workspaceAgents, sentOutside],
  );

  const suggestions = useMemo(
    () => (query === null ? [] : mentionCandidates({ query, agents, people: members })),
    [agents, members, query],
  );
  const open = suggestions.length > 0;

  function updateQuery(value: string, caret: number) {
    const match = MENTION_QUERY.exec(value.slice(0, caret));
    setQuery(match ? match[2] : null);
    setHighlight(0);
  }

  function onChange(event: ChangeEvent<HTMLTextAreaElement>) {
    setText(event.target.value);
    if (event.target.value.trim()) announceTyping();
    setError("");
    setCanRetry(false);
    updateQuery(event.target.value, event.target.selectionStart);
  }

  function pick(candidate: MentionCandidate) {
    const element = textarea.current;
    const caret = element?.selectionStart ?? text.length;
    const before = text.slice(0, caret).replace(MENTION_QUERY, (_all, lead: string) => `${lead}@${candidate.handle} `);
    const next = before + text.slice(caret);
    setText(next);
    // a picked agent is sent as a structured mention; a person is read back from the text by the shared tokeniser
    if (candidate.kind === "agent") setMentioned((list) => (list.includes(candidate.handle) ? list : [...list, candidate.handle]));
    setQuery(null);
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(before.length, before.length);
    });
  }

  async function send() {
    const body = text.trim();
    // a file may go alone; nothing at all is not a message
    if ((!body && attachments.length === 0) || sending || uploading) return;
    if (body.length > MAX_MESSAGE_CHARS) return setError(t("tooLong", { max: MAX_MESSAGE_CHARS }));
    const typed = tokenizeMentions(body);
    const mentionHandles = [...new Set([...mentioned, ...conversationAgents])].filter((handle) => typed.includes(handle));
    setSending(true);
    try {
      const { message, notInConversation } = await api.conversations.postMessage(
        { conversationId },
        { body, mentionHandles, attachmentIds: attachments.map((a) => a.id) },
      );
      upsertMessage(message);
      setSentOutside(notInConversation);
      setError("");
      setCanRetry(false);
      saveDraft(conversationId, "");
      // only what was sent leaves the composer: words typed while it was on its way stay
      setText((current) => (current.startsWith(text) ? current.slice(text.length).trimStart() : current));
      setMentioned([]);
      setAttachments([]);
    } catch (caught) {
      const failure = sendFailure(caught, t, errorText);
      setError(failure.text);
      setCanRetry(failure.retry);
    } finally {
      setSending(false);
    }
  }

  async function addAgent(handle: string) {
    try {
      await api.members.addAgent({ conversationId }, { handle });
      setAdded((list) => (list.includes(handle) ? list : [...list, handle]));
    } catch (caught) {
      setError(errorText(caught, t("addFailed", { handle })));
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (open) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setHighlight((h) => (h + step + suggestions.length) % suggestions.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        pick(suggestions[highlight]);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setQuery(null);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  async function onFiles(event: ChangeEvent<HTMLInputElement>) {
    const files = [...(event.target.files ?? [])];
    event.target.value = "";
    setError("");
    for (const file of files) {
      if (file.size > MAX_UPLOAD_BYTES) {
        setError(t("fileTooLarge", { name: file.name, megabytes: MAX_UPLOAD_BYTES / 1024 / 1024 }));
        continue;
      }
      setUploading(true);
      try {
        const data = new FormData();
        data.set("file", file);
        const { attachment } = await api.conversations.upload({ conversationId }, data);
        setAttachments((list) => [...list, attachment]);
      } catch (caught) {
        setError(errorText(caught, t("uploadFailed")));
      } finally {
        setUploading(false);
      }
    }
  }

  return (
    <div className="border-t border-zinc-200 p-3 dark:border-zinc-800">
      {sentOutside.length > 0 || typedOutside.length > 0 ? (
        <div
          role="status"
          aria-label={t("outsideAgents")}
          data-testid="mention-offer"
          className="mb-2 flex flex-wrap items-center gap-2 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          {sentOutside.map((handle) =>
            added.includes(handle) ? (
              <span key={handle}>{t("agentAdded", { handle })}</span>
            ) : (
              <span key={handle} className="flex items-center gap-2">
                {t("sentOutside", { handle })}
                <Button type="button" variant="secondary" onClick={() => void addAgent(handle)}>
                  {t("addAgent", { handle })}
                </Button>
              </span>
            ),
          )}
          {typedOutside.map((handle) => (
            <span key={`typed-${handle}`} className="flex items-center gap-2">
              {t("typedOutside", { handle })}
              <Button type="button" variant="secondary" onClick={() => void addAgent(handle)}>
                {t("addAgentQuestion", { handle })}
              </Button>
            </span>
          ))}
          {sentOutside.length > 0 ? (
            <button type="button" aria-label={t("dismiss")} className="ml-auto" onClick={() => setSentOutside([])}>
              <CloseIcon size={12} />
            </button>
          ) : null}
        </div>
      ) : null}
      {attachments.length > 0 ? (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label={t("filesToSend")}>
          {attachments.map((attachment) => (
            <li key={attachment.id} className="flex items-center gap-1 rounded-md bg-zinc-100 px-2 py-1 text-xs dark:bg-zinc-800">
              <FileIcon size={14} /> {attachment.name}
              <button
                type="button"
                aria-label={t("removeFile", { name: attachment.name })}
                onClick={() => setAttachments((l) => l.filter((a) => a.id !== attachment.id))}
                className="ml-1 text-zinc-500"
              >
                <CloseIcon size={12} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <div
          role="alert"
          className="mb-2 flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-300"
          data-testid="send-error"
        >
          <span>{error}</span>
          {canRetry ? (
            <Button variant="secondary" size="sm" onClick={() => void send()} disabled={sending}>
              {t("retry")}
            </Button>
          ) : null}
        </div>
      ) : null}
      <div className="relative flex items-end gap-2">
        {open ? <MentionPicker candidates={suggestions} highlight={highlight} onPick={pick} /> : null}
        <input ref={fileInput} type="file" multiple hidden onChange={onFiles} aria-label={t("attachFiles")} data-testid="file-input" />
        <Button
          variant="ghost"
          size="md"
          aria-label={t("attachFile")}
          title={t("attachFile")}
          onClick={() => fileInput.current?.click()}
          disabled={uploading}
        >
          {uploading ? "…" : <PaperclipIcon />}
        </Button>
        <textarea
          ref={textarea}
          value={text}
          onChange={onChange}
          onKeyDown={onKeyDown}
          onBlur={() => setQuery(null)}
          rows={Math.min(8, Math.max(1, text.split("\n").length))}
          maxLength={MAX_MESSAGE_CHARS + 1}
          placeholder={t("placeholder")}
          aria-label={t("message")}
          data-composer
          role="combobox"
          aria-expanded={open}
          aria-controls={MENTION_LISTBOX_ID}
          aria-autocomplete="list"
          aria-activedescendant={open && suggestions[highlight] ? mentionOptionId(suggestions[highlight]) : undefined}
          className="min-h-10 flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <Button
          onClick={() => void send()}
          disabled={sending || uploading || (text.trim().length === 0 && attachments.length === 0)}
          aria-label={t("sendMessage")}
        >
          {t("send")}
        </Button>
      </div>
      <div className="mt-1 flex items-center justify-between gap-2">
        <TypingIndicator conversationId={conversationId} currentUserId={currentUserId} />
        <NotificationsButton />
      </div>
    </div>
  );
}
