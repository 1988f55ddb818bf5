import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/auth-card.tsx";
import { SignInForm } from "@/components/auth/sign-in-form.tsx";
import { currentUser, hasAnyUser } from "@/server/auth/page-session.ts";

export const metadata = { title: "Sign in" };

export default async function SignInPage() {
  if (await currentUser()) redirect("/");
  if (!(await hasAnyUser())) redirect("/sign-up");
  return (
    <AuthCard title="Sign in to Baton">
      <SignInForm />
    </AuthCard>
  );
}
