import { MobileMenuButton } from "@/components/app-shell.tsx";
import { NewConversationButton } from "@/components/new-conversation-dialog.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";

export const metadata = { title: "Conversations" };

export default async function HomePage() {
  await requirePageUser();
  return (
    <>
      {/* at phone width the sidebar is a drawer: this is the way to it */}
      <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 md:hidden dark:border-zinc-800">
        <MobileMenuButton />
        <span className="font-semibold">Baton</span>
      </header>
      <main className="flex flex-1 flex-col items-center justify-center gap-4 p-8 text-center">
        <h1 className="text-2xl font-semibold">Work with your agents</h1>
        <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">
          Start a conversation, pick the agents who should be in it, and ask the commander for something. When it needs more than one step,
          it writes a plan and you watch it run.
        </p>
        <NewConversationButton label="Start a conversation" />
      </main>
    </>
  );
}
