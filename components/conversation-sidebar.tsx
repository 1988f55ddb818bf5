"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect } from "react";
import { NewConversationButton } from "./new-conversation-dialog.tsx";
import { getSocket } from "./socket-client.ts";
import { useSidebarStore } from "./stores/sidebar-store.ts";

export interface SidebarConversation {
  id: string;
  title: string;
}

export function ConversationSidebar({ conversations }: { conversations: SidebarConversation[] }) {
  const pathname = usePathname();
  const router = useRouter();
  const unread = useSidebarStore((s) => s.unread);
  const noteActivity = useSidebarStore((s) => s.noteActivity);
  const setMobileOpen = useSidebarStore((s) => s.setMobileOpen);

  useEffect(() => {
    const socket = getSocket();
    const known = new Set(conversations.map((c) => c.id));
    const onActivity = ({ conversationId }: { conversationId: string; seq: number }) => {
      // someone added us to a conversation: fetch the list again
      if (!known.has(conversationId)) router.refresh();
      noteActivity(conversationId);
    };
    socket.on("activity", onActivity);
    return () => {
      socket.off("activity", onActivity);
    };
  }, [conversations, noteActivity, router]);

  return (
    <nav aria-label="Conversation list" className="flex min-h-0 flex-1 flex-col gap-2 px-2">
      <div className="px-2">
        <NewConversationButton label="New conversation" full />
      </div>
      <ul className="min-h-0 flex-1 space-y-0.5 overflow-y-auto" data-testid="conversation-list">
        {conversations.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">No conversations yet.</li> : null}
        {conversations.map((conversation) => {
          const href = `/c/${conversation.id}`;
          const active = pathname === href;
          const count = unread[conversation.id] ?? 0;
          return (
            <li key={conversation.id}>
              <Link
                href={href}
                aria-current={active ? "page" : undefined}
                onClick={() => setMobileOpen(false)}
                className={`flex items-center gap-2 rounded-md px-3 py-2 text-sm ${active ? "bg-zinc-200 font-medium dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-800/60"}`}
              >
                <span className="min-w-0 flex-1 truncate">{conversation.title}</span>
                {count > 0 && !active ? (
                  <>
                    <span data-testid="activity-badge" aria-hidden className="rounded-full bg-accent px-1.5 text-[11px] font-semibold text-white">
                      {count > 99 ? "99+" : count}
                    </span>
                    {/* part of the link's name, "Title, 3 new updates": ARIA 1.2 does not allow aria-label on a plain span */}
                    <span className="sr-only">{`, ${count > 99 ? "99+" : count} new ${count === 1 ? "update" : "updates"}`}</span>
                  </>
                ) : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
