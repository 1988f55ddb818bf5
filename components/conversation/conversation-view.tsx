"use client";
import { useEffect, useRef, useState } from "react";
import { MobileMenuButton } from "../app-shell.tsx";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { CloseIcon } from "../ui/icons.tsx";
import { Composer } from "./composer.tsx";
import { MembersButton } from "./members-dialog.tsx";
import { CommanderRepliesSelect } from "./commander-replies-select.tsx";
import { ActivityBar } from "./activity-bar.tsx";
import { ConversationSettingsButton } from "./conversation-settings.tsx";
import { UsageLine } from "./usage-line.tsx";
import { MessageList } from "./message-list.tsx";
import { PlanPanel } from "./plan-panel.tsx";
import { useConversationSync, type ConnectionState } from "./use-conversation-sync.ts";

const CONNECTION_LABEL: Record<ConnectionState, string> = { connecting: "connecting…", live: "live", offline: "reconnecting…" };

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
export function ConversationView({ snapshot, currentUserId }: { snapshot: Snapshot; currentUserId: string }) {
  const connection = useConversationSync(snapshot);
  const title = useConversationStore((s) => (s.conversationId === snapshot.conversation.id ? s.title : snapshot.conversation.title));
  const planCount = useConversationStore((s) => Object.keys(s.plans).length);
  const [planOpen, setPlanOpen] = useState(false);
  const conversationId = snapshot.conversation.id;
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
      <section ref={chat} className="flex min-w-0 flex-1 flex-col" aria-label="Chat">
        <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <MobileMenuButton />
          <h1 className="min-w-0 flex-1 truncate text-base font-semibold" data-testid="conversation-title">
            {title}
          </h1>
          <span
            data-testid="connection"
            data-state={connection}
            className={`hidden text-xs sm:inline ${connection === "live" ? "text-emerald-700 dark:text-emerald-400" : "text-amber-700 dark:text-amber-400"}`}
          >
            ● {CONNECTION_LABEL[connection]}
          </span>
          <UsageLine className="hidden md:inline" />
          <CommanderRepliesSelect conversationId={conversationId} initial={snapshot.conversation.commanderReplies} />
          <MembersButton conversationId={conversationId} currentUserId={currentUserId} />
          <ConversationSettingsButton conversationId={conversationId} />
          <Button
            variant="secondary"
            size="sm"
            className="lg:hidden"
            onClick={() => setPlanOpen(true)}
            aria-label="Show plan"
            aria-expanded={planOpen}
            aria-controls="plan-sheet"
          >
            Plan{planCount ? ` (${planCount})` : ""}
          </Button>
        </header>
        <MessageList currentUserId={currentUserId} />
        <ActivityBar />
        <Composer conversationId={conversationId} currentUserId={currentUserId} />
      </section>
      {planOpen ? <div aria-hidden className="fixed inset-0 z-30 bg-black/40 lg:hidden" onClick={() => setPlanOpen(false)} /> : null}
      <aside
        id="plan-sheet"
        aria-label="Plan"
        data-testid="plan-sheet"
        className={`${planOpen ? "fixed inset-x-0 bottom-0 z-40 flex h-[85dvh] rounded-t-2xl shadow-2xl" : "hidden"} flex-col border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950 lg:relative lg:inset-auto lg:z-auto lg:flex lg:h-auto lg:w-[26rem] lg:rounded-none lg:shadow-none xl:w-[30rem]`}
      >
        <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-2 dark:border-zinc-800 lg:hidden">
          <span aria-hidden className="absolute left-1/2 top-1.5 h-1 w-10 -translate-x-1/2 rounded-full bg-zinc-300 dark:bg-zinc-700" />
          <span className="text-sm font-semibold">Plan</span>
          <Button variant="ghost" size="sm" onClick={() => setPlanOpen(false)} aria-label="Close plan">
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
