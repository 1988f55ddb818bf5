"use client";
/**
 * The conversation's header, from a 360 px phone to a 2560 px screen. It sizes itself by
 * its own width (a container query), not the window's: at 1280 px the chat column is
 * narrower than the window by the sidebar and the plan panel.
 *
 * - The title always keeps room (at least 6 rem) and truncates with the full text on hover.
 * - The commander's answering mode and the usage line sit in the header only where there
 *   is room; otherwise they live behind ⋯ (Conversation settings), which is always shown,
 *   as are Members and, below `lg`, Plan. On a phone the gaps narrow and an admin's
 *   History link is a clock, so that all of them, "Plan (n)" included, stay on screen.
 * - The repository badge of a conversation linked to a repository goes before the
 *   usage line.
 */
import Link from "next/link";
import { useTranslations } from "next-intl";
import { MobileMenuButton } from "../app-shell.tsx";
import { Button } from "../ui/button.tsx";
import { CommanderRepliesSelect, type CommanderReplies } from "./commander-replies-select.tsx";
import { ConversationSettingsButton } from "./conversation-settings.tsx";
import { MembersButton } from "./members-dialog.tsx";
import { RepositoryBadge } from "./repository-badge.tsx";
import { UsageLine } from "./usage-line.tsx";
import type { ConnectionState } from "./use-conversation-sync.ts";

export function ConversationHeader({
  conversationId,
  currentUserId,
  title,
  connection,
  replies,
  planCount,
  planOpen,
  onOpenPlan,
  planHistoryHref = null,
}: {
  conversationId: string;
  currentUserId: string;
  title: string;
  connection: ConnectionState;
  replies: CommanderReplies;
  planCount: number;
  planOpen: boolean;
  onOpenPlan: () => void;
  /** admins only: this conversation's plans in the admin plan history */
  planHistoryHref?: string | null;
}) {
  const t = useTranslations("conversation");
  const connectionLabel = t(`connection.${connection}`);
  return (
    <header className="@container border-b border-zinc-200 dark:border-zinc-800" data-testid="conversation-header">
      <div className="flex items-center gap-1.5 px-2 py-2 @md:gap-2 @md:px-3">
        <MobileMenuButton />
        <h1 className="min-w-24 flex-1 truncate text-base font-semibold" data-testid="conversation-title" title={title}>
          {title}
        </h1>
        <span
          data-testid="connection"
          data-state={connection}
          role="status"
          aria-label={t("connectionLabel", { state: connectionLabel })}
          title={connectionLabel}
          className={`shrink-0 whitespace-nowrap text-xs ${connection === "live" ? "text-emerald-700 dark:text-emerald-400" : "text-amber-700 dark:text-amber-400"}`}
        >
          ● <span className={connection === "live" ? "hidden @md:inline" : ""}>{connectionLabel}</span>
        </span>
        <RepositoryBadge conversationId={conversationId} />
        <UsageLine className="hidden shrink-0 whitespace-nowrap @3xl:inline" />
        <CommanderRepliesSelect id={`${conversationId}-replies-inline`} replies={replies} className="hidden shrink-0 @4xl:flex" />
        {planHistoryHref ? (
          <Link
            href={planHistoryHref}
            className="flex shrink-0 items-center whitespace-nowrap rounded-md px-1 py-1 text-xs text-accent hover:underline @md:px-1.5"
            title={t("planHistoryTitle")}
            aria-label={t("planHistory")}
            data-testid="plan-history-link"
          >
            {/* a clock on a phone, where the word would push Plan off the screen */}
            <svg aria-hidden viewBox="0 0 16 16" className="size-4 @md:hidden" fill="none" stroke="currentColor" strokeWidth="1.5">
              <circle cx="8" cy="8" r="6.25" />
              <path d="M8 4.5V8l2.5 1.5" strokeLinecap="round" />
            </svg>
            <span className="hidden @md:inline">{t("planHistory")}</span>
          </Link>
        ) : null}
        <MembersButton conversationId={conversationId} currentUserId={currentUserId} />
        <ConversationSettingsButton conversationId={conversationId} replies={replies} />
        <Button
          variant="secondary"
          size="sm"
          className="shrink-0 whitespace-nowrap lg:hidden"
          onClick={onOpenPlan}
          aria-label={t("showPlan")}
          aria-expanded={planOpen}
          aria-controls="plan-sheet"
        >
          {planCount ? t("planCount", { count: planCount }) : t("plan")}
        </Button>
      </div>
    </header>
  );
}
