import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { AuthCard } from "@/components/auth/auth-card.tsx";
import { SignUpForm } from "@/components/auth/sign-up-form.tsx";
import { currentUser, hasAnyUser } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export async function generateMetadata() {
  const t = await getTranslations("auth");
  return { title: t("signUp") };
}

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ invite?: string | string[] }> }) {
  if (await currentUser()) redirect("/");
  const { invite } = await searchParams;
  const t = await getTranslations("auth");
  const token = typeof invite === "string" ? invite : undefined;
  const firstUser = !(await hasAnyUser());
  const inviteOk = token ? await getRuntime().app.signUp.isInviteUsable(token) : false;
  return (
    <AuthCard title={firstUser ? t("firstAccountTitle") : t("joinTitle")}>
      {firstUser ? <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">{t("firstAccountNote")}</p> : null}
      {firstUser || inviteOk ? (
        <SignUpForm inviteToken={firstUser ? undefined : token} />
      ) : (
        <p role="alert" className="text-sm text-zinc-700 dark:text-zinc-300">
          {token ? t("inviteUsedUp") : t("byInvitation")}{" "}
          {t.rich("askForInvite", {
            link: (chunks) => (
              <a className="text-accent underline" href="/sign-in">
                {chunks}
              </a>
            ),
          })}
        </p>
      )}
    </AuthCard>
  );
}
