import { AppShell } from "@/components/app-shell.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export default async function AppLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  const conversations = await getRuntime().services.listConversations({ userId: user.id });
  return (
    <AppShell user={user} conversations={conversations.map((c) => ({ id: c.id, title: c.title }))}>
      {children}
    </AppShell>
  );
}
