"use client";
/**
 * Whether the conversation on screen can still be written to: an owner may archive it
 * (read-only until brought back) or delete it while someone has it open. Every member's
 * tab hears it (`conversation-changed`), shows a banner and disables the composer.
 */
import Link from "next/link";
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { api } from "../api-client.ts";
import { getSocket } from "../socket-client.ts";

export type ConversationFate = "open" | "archived" | "deleted";

export function useConversationFate(conversationId: string, initiallyArchived: boolean): ConversationFate {
  const [fate, setFate] = useState<ConversationFate>(initiallyArchived ? "archived" : "open");
  useEffect(() => {
    const socket = getSocket();
    let latest = 0;
    const onChange = (change: { conversationId: string; change: "updated" | "deleted" }) => {
      if (change.conversationId !== conversationId) return;
      if (change.change === "deleted") {
        setFate("deleted");
        return;
      }
      // an update may be a rename as well as an archive: read the listing to tell which
      const request = ++latest;
      void api.conversations
        .list()
        .then((list) => {
          if (request !== latest) return;
          const entry = list.conversations.find((conversation) => conversation.id === conversationId);
          setFate((current) => (current === "deleted" ? current : entry?.archivedAt ? "archived" : "open"));
        })
        .catch(() => undefined);
    };
    socket.on("conversation-changed", onChange);
    return () => {
      socket.off("conversation-changed", onChange);
    };
  }, [conversationId]);
  return fate;
}

export function ConversationBanner({ fate }: { fate: ConversationFate }) {
  const t = useTranslations("conversation");
  if (fate === "open") return null;
  return (
    <div
      role="status"
      data-testid="conversation-banner"
      data-fate={fate}
      className={`border-b px-3 py-2 text-sm ${
        fate === "deleted"
          ? "border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100"
          : "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950/60 dark:text-amber-100"
      }`}
    >
      {fate === "deleted" ? (
        <>
          {t("deletedBanner")}{" "}
          <Link href="/" className="font-medium underline">
            {t("backToConversations")}
          </Link>
        </>
      ) : (
        <>{t("archivedBanner")}</>
      )}
    </div>
  );
}
