"use client";
/** The header's badge: the repository and base branch the conversation's code steps work on, when it is linked. */
import { useCallback, useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { api } from "../api-client.ts";
import { getSocket } from "../socket-client.ts";
import { REPOSITORY_LINK_EVENT } from "./repository-link.tsx";

export function RepositoryBadge({ conversationId }: { conversationId: string }) {
  const t = useTranslations("repository");
  const [linked, setLinked] = useState<{ name: string; baseBranch: string } | null>(null);

  const load = useCallback(
    () =>
      api.workspace.conversationRepository({ conversationId }).then(
        (answer) => setLinked(answer.repository),
        () => setLinked(null),
      ),
    [conversationId],
  );

  useEffect(() => {
    void load();
    const onLink = (event: Event) => {
      if ((event as CustomEvent<string>).detail === conversationId) void load();
    };
    const onChange = (change: { conversationId: string }) => {
      if (change.conversationId === conversationId) void load();
    };
    window.addEventListener(REPOSITORY_LINK_EVENT, onLink);
    const socket = getSocket();
    socket.on("conversation-changed", onChange);
    return () => {
      window.removeEventListener(REPOSITORY_LINK_EVENT, onLink);
      socket.off("conversation-changed", onChange);
    };
  }, [conversationId, load]);

  if (!linked) return null;
  return (
    <span
      className="hidden max-w-48 truncate rounded-full border border-zinc-300 px-2 py-0.5 font-mono text-xs text-zinc-700 sm:inline dark:border-zinc-700 dark:text-zinc-300"
      title={t("badgeTitle", { name: linked.name, branch: linked.baseBranch })}
      data-testid="repository-badge"
    >
      {linked.name}:{linked.baseBranch}
    </span>
  );
}
