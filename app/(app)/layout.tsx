import { AppShell } from "@/components/app-shell.tsx";
import { KeyboardShortcuts } from "@/components/keyboard-shortcuts.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export default async function AppLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  const [conversations, invitations] = await Promise.all([
    getRuntime().app.conversations.listConversations({ userId: user.id }),
    getRuntime().app.members.listMyInvitations({ actor: user }),
  ]);
  return (
    <AppShell
      user={user}
      conversations={conversations.map((c) => ({ id: c.id, title: c.title, archived: c.archivedAt !== null, isDemo: c.isDemo }))}
      invitations={invitations}
    >
      <KeyboardShortcuts />
      {children}
    </AppShell>
  );
}
