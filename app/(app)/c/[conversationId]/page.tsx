import { cache } from "react";
import type { Metadata } from "next";
import { ConversationView } from "@/components/conversation/conversation-view.tsx";
import { requirePageMember } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

type Params = { params: Promise<{ conversationId: string }> };

/** The member check and the snapshot, read once per request for the title and the page. */
const loadConversation = cache(async (conversationId: string) => {
  const user = await requirePageMember(conversationId);
  const snapshot = await getRuntime().app.conversations.getSnapshot({ actor: user, conversationId });
  return { user, snapshot };
});

// the tab says which conversation it is ("<title> · Baton"); the browser adds unread counts to it
export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { conversationId } = await params;
  const { snapshot } = await loadConversation(conversationId);
  return { title: snapshot.conversation.title };
}

export default async function ConversationPage({ params }: Params) {
  const { conversationId } = await params;
  const { user, snapshot } = await loadConversation(conversationId);
  const readUpTo = await getRuntime().app.conversations.lastReadAt({ actor: user, conversationId });
  // plain JSON across the server/client boundary
  return (
    <ConversationView
      snapshot={JSON.parse(JSON.stringify(snapshot)) as typeof snapshot}
      currentUserId={user.id}
      lastReadAt={readUpTo?.toISOString() ?? null}
      // admins reach this conversation's plans in the admin plan history from its header
      planHistoryHref={user.role === "admin" ? `/admin/plans?conversation=${conversationId}` : null}
    />
  );
}
