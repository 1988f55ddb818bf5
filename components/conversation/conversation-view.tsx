"use client";
import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { CloseIcon } from "../ui/icons.tsx";
import { Composer } from "./composer.tsx";
import { CommanderHint, useCommanderReplies } from "./commander-replies-select.tsx";
import { ActivityBar } from "./activity-bar.tsx";
import { ConversationBanner, useConversationFate } from "./conversation-banner.tsx";
import { ConversationHeader } from "./conversation-header.tsx";
import { MessageList } from "./message-list.tsx";
import { PlanPanel } from "./plan-panel.tsx";
import { useConversationSync } from "./use-conversation-sync.ts";

/**
 * While the on-screen keyboard opens or closes, the field being typed in (the composer,
 * a form card's field) is scrolled back into view: the viewport shrinks under it.
 */
function useKeepFocusedFieldVisible(container: React.RefObject<HTMLElement | null>) {
  useEffect(() => {
    const viewport = window.visualViewport;
    const reveal = () => {
      const field = document.activeElement;
      if (!(field instanceof HTMLElement) || !container.current?.contains(field)) return;
      if (!field.matches("input, textarea, select, [contenteditable=true]")) return;
      field.scrollIntoView({ block: "nearest" });
    };
    const onFocus = () => window.setTimeout(reveal, 300); // after the keyboard's animation
    viewport?.addEventListener("resize", reveal);
    const node = container.current;
    node?.addEventListener("focusin", onFocus);
    return () => {
      viewport?.removeEventListener("resize", reveal);
      node?.removeEventListener("focusin", onFocus);
    };
  }, [container]);
}

/**
 * Chat on the left, the plan panel beside it on wide screens. Below `lg` the chat is
 * full width and the plan is a bottom sheet opened from the header's Plan button.
 */
export function ConversationView({
  snapshot,
  currentUserId,
  planHistoryHref = null,
  lastReadAt = null,
}: {
  snapshot: Snapshot;
  currentUserId: string;
  /** how far this person had read when the page opened: the "new messages" line goes after it */
  lastReadAt?: string | null;
  /** admins only: the admin plan history filtered to this conversation */
  planHistoryHref?: string | null;
}) {
  const t = useTranslations("conversation");
  const connection = useConversationSync(snapshot);
  const title = useConversationStore((s) => (s.conversationId === snapshot.conversation.id ? s.title : snapshot.conversation.title));
  const planCount = useConversationStore((s) => Object.keys(s.plans).length);
  const people = useConversationStore((s) => (s.conversationId === snapshot.conversation.id ? s.members.length : snapshot.members.length));
  const [planOpen, setPlanOpen] = useState(false);
  const conversationId = snapshot.conversation.id;
  const replies = useCommanderReplies(conversationId, snapshot.conversation.commanderReplies);
  const fate = useConversationFate(conversationId, snapshot.conversation.archivedAt !== null);
  const chat = useRef<HTMLElement>(null);
  useKeepFocusedFieldVisible(chat);
  useEffect(() => {
    if (!planOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setPlanOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [planOpen]);

  return (
    <div className="flex min-h-0 flex-1">
      <section ref={chat} className="flex min-w-0 flex-1 flex-col" aria-label={t("chat")}>
        <ConversationHeader
          conversationId={conversationId}
          currentUserId={currentUserId}
          title={title}
          connection={connection}
          replies={replies}
          planCount={planCount}
          planOpen={planOpen}
          onOpenPlan={() => setPlanOpen(true)}
          planHistoryHref={planHistoryHref}
        />
        <ConversationBanner fate={fate} />
        <MessageList currentUserId={currentUserId} readMark={{ conversationId, lastReadAt }} />
        <ActivityBar />
        {/* a disabled fieldset disables every control of the composer at once */}
        <fieldset disabled={fate !== "open"} className="contents" aria-label={fate === "open" ? undefined : t("composerReadOnly")}>
          {fate === "open" ? <CommanderHint mode={replies.mode} people={people} /> : null}
          <Composer conversationId={conversationId} currentUserId={currentUserId} />
        </fieldset>
      </section>
      {planOpen ? <div aria-hidden className="fixed inset-0 z-30 bg-black/40 lg:hidden" onClick={() => setPlanOpen(false)} /> : null}
      <aside
        id="plan-sheet"
        aria-label={t("plan")}
        data-testid="plan-sheet"
        className={`${planOpen ? "fixed inset-x-0 bottom-0 z-40 flex h-[85dvh] rounded-t-2xl shadow-2xl" : "hidden"} flex-col border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950 lg:relative lg:inset-auto lg:z-auto lg:flex lg:h-auto lg:w-[26rem] lg:rounded-none lg:shadow-none xl:w-[30rem]`}
      >
        <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-2 dark:border-zinc-800 lg:hidden">
          <span aria-hidden className="absolute left-1/2 top-1.5 h-1 w-10 -translate-x-1/2 rounded-full bg-zinc-300 dark:bg-zinc-700" />
          <span className="text-sm font-semibold">{t("plan")}</span>
          <Button variant="ghost" size="sm" onClick={() => setPlanOpen(false)} aria-label={t("closePlan")}>
            <CloseIcon size={16} />
          </Button>
        </div>
        <div className="relative flex min-h-0 flex-1 flex-col">
          {/* mounted again when the phone sheet opens: a graph laid out while hidden has no size to fit */}
          <PlanPanel key={planOpen ? "sheet" : "side"} conversationId={conversationId} />
        </div>
      </aside>
    </div>
  );
}
