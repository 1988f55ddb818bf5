import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { AuthCard } from "@/components/auth/auth-card.tsx";
import { SignInForm } from "@/components/auth/sign-in-form.tsx";
import { currentUser, hasAnyUser } from "@/server/auth/page-session.ts";

export async function generateMetadata() {
  const t = await getTranslations("auth");
  return { title: t("signIn") };
}

export default async function SignInPage() {
  if (await currentUser()) redirect("/");
  if (!(await hasAnyUser())) redirect("/sign-up");
  const t = await getTranslations("auth");
  return (
    <AuthCard title={t("signInTitle")}>
      <SignInForm />
    </AuthCard>
  );
}
