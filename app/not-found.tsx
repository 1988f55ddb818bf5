import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { LogoIcon } from "@/components/ui/icons.tsx";

export async function generateMetadata() {
  const t = await getTranslations("notFound");
  return { title: t("title") };
}

/**
 * Baton's own 404: an address that leads nowhere, or a conversation that was deleted or
 * that one is not a member of (the server does not say which, so it leaks nothing).
 */
export default async function NotFound() {
  const t = await getTranslations("notFound");
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-4 p-8 text-center" data-testid="not-found">
      <span aria-hidden className="inline-flex h-10 w-10 items-center justify-center rounded-xl bg-accent text-white">
        <LogoIcon size={22} />
      </span>
      <h1 className="text-2xl font-semibold">{t("heading")}</h1>
      <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{t("explanation")}</p>
      <Link
        href="/"
        className="inline-flex h-10 items-center rounded-md bg-accent px-4 text-sm font-medium text-white hover:bg-accent-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      >
        {t("back")}
      </Link>
    </main>
  );
}
