import { ConversationView } from "@/components/conversation/conversation-view.tsx";
import { requirePageMember } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export const metadata = { title: "Conversation" };

export default async function ConversationPage({ params }: { params: Promise<{ conversationId: string }> }) {
  const { conversationId } = await params;
  const user = await requirePageMember(conversationId);
  const snapshot = await getRuntime().services.getSnapshot({ actor: user, conversationId });
  // plain JSON across the server/client boundary
  return <ConversationView snapshot={JSON.parse(JSON.stringify(snapshot)) as typeof snapshot} currentUserId={user.id} />;
}
