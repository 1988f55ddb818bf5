import { getTranslations } from "next-intl/server";
import { MobileMenuButton } from "@/components/app-shell.tsx";
import { NewConversationButton } from "@/components/new-conversation-dialog.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";

export async function generateMetadata() {
  const t = await getTranslations("home");
  return { title: t("title") };
}

export default async function HomePage() {
  await requirePageUser();
  const t = await getTranslations("home");
  return (
    <>
      {/* at phone width the sidebar is a drawer: this is the way to it */}
      <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 md:hidden dark:border-zinc-800">
        <MobileMenuButton />
        <span className="font-semibold">Baton</span>
      </header>
      <main className="flex flex-1 flex-col items-center justify-center gap-4 p-8 text-center">
        <h1 className="text-2xl font-semibold">{t("heading")}</h1>
        <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{t("intro")}</p>
        <NewConversationButton label={t("start")} />
      </main>
    </>
  );
}
