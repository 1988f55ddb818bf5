"use client";
import { useState } from "react";
import { MobileMenuButton } from "../app-shell.tsx";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { CloseIcon } from "../ui/icons.tsx";
import { Composer } from "./composer.tsx";
import { MembersButton } from "./members-dialog.tsx";
import { CommanderRepliesSelect } from "./commander-replies-select.tsx";
import { ActivityBar } from "./activity-bar.tsx";
import { MessageList } from "./message-list.tsx";
import { PlanPanel } from "./plan-panel.tsx";
import { useConversationSync, type ConnectionState } from "./use-conversation-sync.ts";

const CONNECTION_LABEL: Record<ConnectionState, string> = { connecting: "connecting…", live: "live", offline: "reconnecting…" };

/** Chat on the left, the plan panel beside it (a full-screen sheet at phone width). */
export function ConversationView({ snapshot, currentUserId }: { snapshot: Snapshot; currentUserId: string }) {
  const connection = useConversationSync(snapshot);
  const title = useConversationStore((s) => (s.conversationId === snapshot.conversation.id ? s.title : snapshot.conversation.title));
  const planCount = useConversationStore((s) => Object.keys(s.plans).length);
  const [planOpen, setPlanOpen] = useState(false);
  const conversationId = snapshot.conversation.id;

  return (
    <div className="flex min-h-0 flex-1">
      <section className="flex min-w-0 flex-1 flex-col" aria-label="Chat">
        <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <MobileMenuButton />
          <h1 className="min-w-0 flex-1 truncate text-base font-semibold" data-testid="conversation-title">
            {title}
          </h1>
          <span
            data-testid="connection"
            data-state={connection}
            className={`hidden text-xs sm:inline ${connection === "live" ? "text-emerald-600" : "text-amber-600"}`}
          >
            ● {CONNECTION_LABEL[connection]}
          </span>
          <CommanderRepliesSelect conversationId={conversationId} initial={snapshot.conversation.commanderReplies} />
          <MembersButton conversationId={conversationId} currentUserId={currentUserId} />
          <Button variant="secondary" size="sm" className="lg:hidden" onClick={() => setPlanOpen(true)} aria-label="Show plan">
            Plan{planCount ? ` (${planCount})` : ""}
          </Button>
        </header>
        <MessageList currentUserId={currentUserId} />
        <ActivityBar />
        <Composer conversationId={conversationId} />
      </section>
      <aside
        aria-label="Plan"
        className={`${planOpen ? "fixed inset-0 z-30 flex" : "hidden"} flex-col border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950 lg:relative lg:z-auto lg:flex lg:w-[26rem] xl:w-[30rem]`}
      >
        <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-2 dark:border-zinc-800 lg:hidden">
          <span className="text-sm font-semibold">Plan</span>
          <Button variant="ghost" size="sm" onClick={() => setPlanOpen(false)} aria-label="Close plan">
            <CloseIcon size={16} />
          </Button>
        </div>
        <div className="relative flex min-h-0 flex-1 flex-col">
          <PlanPanel conversationId={conversationId} />
        </div>
      </aside>
    </div>
  );
}
