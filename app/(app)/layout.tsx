import { cookies } from "next/headers";
import { AppShell } from "@/components/app-shell.tsx";
import { ErrorPage } from "@/components/error-page.tsx";
import { KeyboardShortcuts } from "@/components/keyboard-shortcuts.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";
import { FORCED_OUTAGE_COOKIE, forcedOutageError, outageForcedForTests } from "@/server/http/forced-outage-test-hook.ts";
import { readIfReachable } from "@/server/http/reachable-read.ts";
import { getRuntime } from "@/server/runtime.ts";

export default async function AppLayout({ children }: { children: React.ReactNode }) {
  // every page behind sign-in starts here: an outage is told as one, not as a bare error
  const forcedOutage = outageForcedForTests((await cookies()).get(FORCED_OUTAGE_COOKIE)?.value);
  const shell = await readIfReachable(async () => {
    if (forcedOutage) throw forcedOutageError();
    const user = await requirePageUser();
    const [conversations, invitations] = await Promise.all([
      getRuntime().app.conversations.listConversations({ userId: user.id }),
      getRuntime().app.members.listMyInvitations({ actor: user }),
    ]);
    return { user, conversations, invitations };
  });
  if (!shell.reachable) return <ErrorPage cause="unreachable" />;
  const { user, conversations, invitations } = shell.value;
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
