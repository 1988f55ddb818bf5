import { NextIntlClientProvider } from "next-intl";
import { getMessages, getTranslations } from "next-intl/server";
import { AdminTabs } from "@/components/admin/admin-tabs.tsx";
import { MobileMenuButton } from "@/components/app-shell.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";

export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  await requirePageAdmin();
  const t = await getTranslations("admin.sections");
  return (
    // every message, the admin pages' too: only an admin gets this far
    <NextIntlClientProvider messages={await getMessages()}>
      <div className="flex min-h-0 flex-1 flex-col">
        <header className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <MobileMenuButton />
          <h1 className="shrink-0 text-base font-semibold">{t("title")}</h1>
          <AdminTabs />
        </header>
        <main className="min-h-0 flex-1 overflow-y-auto p-4">{children}</main>
      </div>
    </NextIntlClientProvider>
  );
}
