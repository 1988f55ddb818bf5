"use client";
import Link, { useLinkStatus } from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { api } from "./api-client.ts";
import { Button } from "./ui/button.tsx";
import { NewConversationButton } from "./new-conversation-dialog.tsx";
import { SearchButton } from "./search-dialog.tsx";
import { getSocket } from "./socket-client.ts";
import { useSidebarStore } from "./stores/sidebar-store.ts";
import { useErrorText } from "./error-text.ts";

export interface SidebarConversation {
  id: string;
  title: string;
  /** archived by an owner: listed under "Archived", not in the main list */
  archived?: boolean;
  /** the person's own demo conversation: labelled "Demo" */
  isDemo?: boolean;
}

export interface SidebarInvitation {
  id: string;
  conversation: { id: string; title: string };
  invitedBy: string;
}

export function ConversationSidebar({
  conversations,
  invitations,
}: {
  conversations: SidebarConversation[];
  invitations: SidebarInvitation[];
}) {
  const pathname = usePathname();
  const router = useRouter();
  const t = useTranslations("sidebar");
  const noteActivity = useSidebarStore((s) => s.noteActivity);
  const noteMention = useSidebarStore((s) => s.noteMention);
  /** deleted while open here: dropped from the list at once, the page itself stays (see below) */
  const [deletedHere, setDeletedHere] = useState<ReadonlySet<string>>(new Set());
  const listed = conversations.filter((conversation) => !deletedHere.has(conversation.id));
  const active = listed.filter((conversation) => !conversation.archived);
  const archived = listed.filter((conversation) => conversation.archived);
  const archivedHere = archived.some((conversation) => pathname === `/c/${conversation.id}`);

  useEffect(() => {
    const socket = getSocket();
    const known = new Set(conversations.map((c) => c.id));
    const onActivity = ({ conversationId }: { conversationId: string; seq: number }) => {
      // someone added us to a conversation: fetch the list again
      if (!known.has(conversationId)) router.refresh();
      noteActivity(conversationId);
    };
    // added or removed by an owner, or invited: the server-rendered lists are fetched again
    const onMembership = ({ conversationId, change }: { conversationId: string; change: "added" | "removed" }) => {
      if (change === "removed" && window.location.pathname === `/c/${conversationId}`) router.push("/");
      router.refresh();
    };
    const onInvitations = () => router.refresh();
    // renamed, archived or deleted by an owner. A deleted one we are looking at stays on
    // screen with its banner ("deleted … Back to your conversations") and a read-only
    // composer: leaving for home, or refreshing (which renders this page as a 404),
    // would pull it away mid-sentence. It only leaves the list.
    const onConversation = ({ conversationId, change }: { conversationId: string; change: "updated" | "deleted" }) => {
      if (change === "deleted" && window.location.pathname === `/c/${conversationId}`) {
        setDeletedHere((current) => new Set(current).add(conversationId));
        return;
      }
      router.refresh();
    };
    const onMention = ({ conversationId }: { conversationId: string }) => noteMention(conversationId);
    socket.on("activity", onActivity);
    socket.on("mention-received", onMention);
    socket.on("membership-changed", onMembership);
    socket.on("invitations-changed", onInvitations);
    socket.on("conversation-changed", onConversation);
    return () => {
      socket.off("activity", onActivity);
      socket.off("mention-received", onMention);
      socket.off("membership-changed", onMembership);
      socket.off("invitations-changed", onInvitations);
      socket.off("conversation-changed", onConversation);
    };
  }, [conversations, noteActivity, noteMention, router]);

  return (
    <nav aria-label={t("list")} data-conversation-list className="flex min-h-0 flex-1 flex-col gap-2 px-2">
      <div className="px-2">
        <NewConversationButton label={t("newConversation")} full />
        <SearchButton />
      </div>
      {invitations.length > 0 ? <InvitationList invitations={invitations} /> : null}
      <div className="min-h-0 flex-1 overflow-y-auto">
        <ul className="space-y-0.5" data-testid="conversation-list">
          {active.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">{t("empty")}</li> : null}
          {active.map((conversation) => (
            <ConversationLink key={conversation.id} conversation={conversation} />
          ))}
        </ul>
        {archived.length > 0 ? (
          <details className="mt-3" data-testid="archived-conversations" open={archivedHere || undefined}>
            <summary className="cursor-pointer rounded-md px-3 py-1 text-xs font-semibold uppercase text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800/60">
              {t("archived", { count: archived.length })}
            </summary>
            <ul className="mt-1 space-y-0.5" data-testid="archived-list">
              {archived.map((conversation) => (
                <ConversationLink key={conversation.id} conversation={conversation} />
              ))}
            </ul>
          </details>
        ) : null}
      </div>
    </nav>
  );
}

/**
 * While a conversation is being opened (a slow network), a bar under its link says so at
 * once. Not a route's loading.tsx: that would stream every page of the app, and a page
 * that finds the reader is no member could then no longer answer 404.
 */
function OpeningBar() {
  const { pending } = useLinkStatus();
  const t = useTranslations("sidebar");
  if (!pending) return null;
  return (
    <span role="status" data-testid="page-loading" className="absolute inset-x-2 bottom-0 h-0.5 overflow-hidden bg-accent/20">
      <span aria-hidden className="block h-full w-1/3 animate-loading-bar bg-accent" />
      <span className="sr-only">{t("opening")}</span>
    </span>
  );
}

function ConversationLink({ conversation }: { conversation: SidebarConversation }) {
  const pathname = usePathname();
  const t = useTranslations("sidebar");
  const unread = useSidebarStore((s) => s.unread);
  const mentions = useSidebarStore((s) => s.mentions[conversation.id] ?? 0);
  const setMobileOpen = useSidebarStore((s) => s.setMobileOpen);
  const href = `/c/${conversation.id}`;
  const active = pathname === href;
  const count = unread[conversation.id] ?? 0;
  return (
    <li>
      <Link
        href={href}
        aria-current={active ? "page" : undefined}
        onClick={() => setMobileOpen(false)}
        className={`relative flex items-center gap-2 rounded-md px-3 py-2 text-sm ${active ? "bg-zinc-200 font-medium dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-800/60"}`}
      >
        <span className="min-w-0 flex-1 truncate">{conversation.title}</span>
        <OpeningBar />
        {conversation.isDemo ? (
          <span
            data-testid="demo-label"
            className="rounded border border-zinc-300 px-1 text-[11px] font-medium text-zinc-600 dark:border-zinc-700 dark:text-zinc-300"
          >
            {t("demo")}
          </span>
        ) : null}
        {mentions > 0 && !active ? (
          <>
            <span data-testid="mention-badge" aria-hidden className="rounded-full bg-red-600 px-1.5 text-[11px] font-semibold text-white">
              @{mentions > 99 ? "99+" : mentions}
            </span>
            <span className="sr-only">{t("mentionedYou", { count: mentions })}</span>
          </>
        ) : null}
        {count > 0 && !active ? (
          <>
            <span data-testid="activity-badge" aria-hidden className="rounded-full bg-accent px-1.5 text-[11px] font-semibold text-white">
              {count > 99 ? "99+" : count}
            </span>
            {/* part of the link's name, "Title, 3 new updates": ARIA 1.2 does not allow aria-label on a plain span */}
            <span className="sr-only">{count > 99 ? t("manyUpdates") : t("newUpdates", { count })}</span>
          </>
        ) : null}
      </Link>
    </li>
  );
}

/** Pending invitations into conversations: accept to join, or decline. */
function InvitationList({ invitations }: { invitations: SidebarInvitation[] }) {
  const router = useRouter();
  const t = useTranslations("sidebar");
  const errorText = useErrorText();
  const [error, setError] = useState("");
  async function answer(invitation: SidebarInvitation, accept: boolean) {
    setError("");
    try {
      await api.members.answerInvitation({ invitationId: invitation.id }, { accept });
      if (accept) router.push(`/c/${invitation.conversation.id}`);
      router.refresh();
    } catch (caught) {
      setError(errorText(caught, t("answerFailed")));
    }
  }
  return (
    <section aria-label={t("invitations")} className="mx-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
      <h2 className="mb-1 px-1 text-xs font-semibold uppercase text-zinc-500">{t("invitations")}</h2>
      <ul className="space-y-2">
        {invitations.map((invitation) => (
          <li key={invitation.id} className="px-1 text-sm" data-testid="invitation">
            <p className="truncate">
              <span className="font-medium">{invitation.conversation.title}</span>
              <span className="text-zinc-500"> {t("invitedBy", { name: invitation.invitedBy })}</span>
            </p>
            <div className="mt-1 flex gap-1">
              <Button
                size="sm"
                onClick={() => answer(invitation, true)}
                aria-label={t("acceptInvitation", { title: invitation.conversation.title })}
              >
                {t("accept")}
              </Button>
              <Button
                size="sm"
                variant="ghost"
                onClick={() => answer(invitation, false)}
                aria-label={t("declineInvitation", { title: invitation.conversation.title })}
              >
                {t("decline")}
              </Button>
            </div>
          </li>
        ))}
      </ul>
      {error ? <p className="px-1 text-xs text-red-700 dark:text-red-400">{error}</p> : null}
    </section>
  );
}
