import { getTranslations } from "next-intl/server";
import { MobileMenuButton } from "@/components/app-shell.tsx";
import { TokensPanel } from "@/components/settings/tokens-panel.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export async function generateMetadata() {
  const t = await getTranslations("shell");
  return { title: t("apiTokens") };
}

export default async function TokensPage() {
  // checked here, not only in a layout: a partial render can skip layouts
  const user = await requirePageUser();
  const t = await getTranslations("shell");
  const tokens = await getRuntime().app.tokens.list({ actor: user });
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <MobileMenuButton />
        <h1 className="text-base font-semibold">{t("apiTokens")}</h1>
      </header>
      <main className="min-h-0 flex-1 overflow-y-auto p-4">
        <TokensPanel tokens={tokens} canAdmin={user.role === "admin"} />
      </main>
    </div>
  );
}
