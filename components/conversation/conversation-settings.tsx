"use client";
/**
 * The conversation as a whole: owners (and admins) rename, archive or bring back, and
 * delete it (after a second, explicit confirmation); everyone else sees who can. The
 * title in the header follows renames by anyone, live (`conversation-changed`).
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { api } from "../api-client.ts";
import type { ConversationSummary } from "@/server/protocol/rest/conversations.ts";
import { formText } from "../form-text.ts";
import { getSocket } from "../socket-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { RepositoryLink } from "./repository-link.tsx";
import { CommanderRepliesSelect, type CommanderReplies } from "./commander-replies-select.tsx";
import { useErrorText } from "../error-text.ts";

type Listed = ConversationSummary;

interface State {
  conversation: Listed;
  canManage: boolean;
}

async function loadState(conversationId: string): Promise<State | null> {
  const [list, members] = await Promise.all([api.conversations.list(), api.members.list({ conversationId })]);
  const conversation = list.conversations.find((entry) => entry.id === conversationId);
  return conversation ? { conversation, canManage: members.you.canManage } : null;
}

/**
 * ⋯ in the header, always shown: everything that does not fit the header lives here (the
 * commander's answering mode), with renaming, archiving and deleting.
 */
export function ConversationSettingsButton({ conversationId, replies }: { conversationId: string; replies: CommanderReplies }) {
  const t = useTranslations("settings");
  const errorText = useErrorText();
  const [open, setOpen] = useState(false);
  const [state, setState] = useState<State | null>(null);
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    try {
      const next = await loadState(conversationId);
      setState(next);
      if (next) useConversationStore.setState({ title: next.conversation.title });
    } catch (caught) {
      setError(errorText(caught, t("loadFailed")));
    }
  }, [conversationId, t, errorText]);

  useEffect(() => {
    const socket = getSocket();
    const onChange = (change: { conversationId: string; change: "updated" | "deleted" }) => {
      if (change.conversationId === conversationId && change.change === "updated") void load();
    };
    socket.on("conversation-changed", onChange);
    return () => {
      socket.off("conversation-changed", onChange);
    };
  }, [conversationId, load]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- opening the dialog is what asks for fresh state
    if (open) void load();
  }, [open, load]);

  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)} aria-label={t("title")}>
        <span aria-hidden className="text-base leading-none">
          ⋯
        </span>
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("title")}>
        <ErrorText>{error}</ErrorText>
        {state ? (
          <SettingsPanel state={state} replies={replies} reload={load} onDone={() => setOpen(false)} />
        ) : (
          <p className="text-sm text-zinc-500">{t("loading")}</p>
        )}
      </Dialog>
    </>
  );
}

function SettingsPanel({
  state,
  replies,
  reload,
  onDone,
}: {
  state: State;
  replies: CommanderReplies;
  reload: () => Promise<void>;
  onDone: () => void;
}) {
  const router = useRouter();
  const t = useTranslations("settings");
  const errorText = useErrorText();
  const { conversation, canManage } = state;
  const conversationId = conversation.id;
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  async function act(run: () => Promise<void>) {
    setError("");
    setNotice("");
    setBusy(true);
    try {
      await run();
    } catch (caught) {
      setError(errorText(caught, t("actionFailed")));
    } finally {
      setBusy(false);
    }
  }

  const rename = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const title = formText(new FormData(event.currentTarget).get("title")).trim();
    void act(async () => {
      const saved = await api.conversations.settings({ conversationId }, { title });
      if (saved.title !== undefined) useConversationStore.setState({ title: saved.title });
      setNotice(t("renamed"));
      await reload();
      router.refresh();
    });
  };

  const setArchived = (archived: boolean) =>
    act(async () => {
      await api.conversations.settings({ conversationId }, { archived });
      await reload();
      router.refresh();
      setNotice(archived ? t("archivedNotice") : t("unarchivedNotice"));
    });

  const remove = () =>
    act(async () => {
      await api.conversations.remove({ conversationId }, { confirm: true });
      onDone();
      router.push("/");
      router.refresh();
    });

  if (!canManage) {
    return (
      <div className="flex flex-col gap-3 text-sm text-zinc-600 dark:text-zinc-400">
        <p data-testid="settings-commander-mode">
          {replies.mode === "when_addressed" ? t("commanderWhenAddressed") : t("commanderAlways")}
        </p>
        <p data-testid="settings-owner-only">{t("ownersOnly")}</p>
      </div>
    );
  }

  return (
    <div className="flex flex-col gap-5">
      <section className="flex flex-col gap-1">
        <CommanderRepliesSelect
          id={`${conversationId}-replies-settings`}
          replies={replies}
          className="flex flex-col !items-start"
          visibleLabel
        />
        <p className="text-xs text-zinc-500">{t("peopleOnly")}</p>
      </section>
      <form onSubmit={rename} className="flex flex-col gap-2" aria-label={t("renameForm")}>
        <TextField label={t("titleField")} name="title" defaultValue={conversation.title} required maxLength={120} />
        <div>
          <Button type="submit" size="sm" disabled={busy}>
            {t("rename")}
          </Button>
        </div>
      </form>

      <section className="flex flex-col gap-1">
        <h3 className="text-sm font-semibold">{conversation.archivedAt ? t("archived") : t("archive")}</h3>
        <p className="text-xs text-zinc-500">{conversation.archivedAt ? t("archivedHint") : t("archiveHint")}</p>
        <div>
          <Button variant="secondary" size="sm" disabled={busy} onClick={() => void setArchived(!conversation.archivedAt)}>
            {conversation.archivedAt ? t("unarchive") : t("archive")}
          </Button>
        </div>
      </section>

      <RepositoryLink conversationId={conversationId} canManage={canManage} />

      <section className="flex flex-col gap-1 rounded-md border border-red-200 p-3 dark:border-red-900">
        <h3 className="text-sm font-semibold text-red-700 dark:text-red-400">{t("delete")}</h3>
        {confirming ? (
          <>
            <p className="text-sm" role="alert">
              {t("deleteQuestion", { title: conversation.title })}
            </p>
            <div className="flex gap-2">
              <Button variant="danger" size="sm" disabled={busy} onClick={() => void remove()}>
                {t("deleteForEveryone")}
              </Button>
              <Button variant="ghost" size="sm" onClick={() => setConfirming(false)}>
                {t("keep")}
              </Button>
            </div>
          </>
        ) : (
          <div>
            <Button variant="secondary" size="sm" onClick={() => setConfirming(true)}>
              {t("deleteConversation")}
            </Button>
          </div>
        )}
      </section>

      {notice ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          {notice}
        </p>
      ) : null}
      <ErrorText>{error}</ErrorText>
    </div>
  );
}
