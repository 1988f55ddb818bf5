import { cookies } from "next/headers";
import { getTranslations } from "next-intl/server";
import { LOCALE_COOKIE } from "@/i18n/locales.ts";
import { LanguageSwitch } from "@/components/profile/language-switch.tsx";
import { MobileMenuButton } from "@/components/app-shell.tsx";
import { PasswordForm } from "@/components/profile/password-form.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";

export async function generateMetadata() {
  const t = await getTranslations("profile");
  return { title: t("title") };
}

export default async function ProfilePage() {
  // checked here, not only in a layout: a partial render can skip layouts
  const user = await requirePageUser();
  const t = await getTranslations("profile");
  const savedLocale = (await cookies()).get(LOCALE_COOKIE)?.value;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <MobileMenuButton />
        <h1 className="text-base font-semibold">{t("title")}</h1>
      </header>
      <main className="min-h-0 max-w-xl flex-1 space-y-6 overflow-y-auto p-4">
        <section aria-labelledby="who">
          <h2 id="who" className="mb-2 text-sm font-semibold">
            {t("you")}
          </h2>
          <dl className="grid grid-cols-[8rem_1fr] gap-y-1 text-sm">
            <dt className="text-zinc-500">{t("name")}</dt>
            <dd data-testid="profile-name">{user.name}</dd>
            <dt className="text-zinc-500">{t("email")}</dt>
            <dd data-testid="profile-email">{user.email}</dd>
            <dt className="text-zinc-500">{t("role")}</dt>
            <dd>{t("roleName", { role: user.role })}</dd>
          </dl>
        </section>
        <LanguageSwitch saved={savedLocale} />
        <PasswordForm />
      </main>
    </div>
  );
}
