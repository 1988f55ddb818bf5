import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/auth-card.tsx";
import { SignUpForm } from "@/components/auth/sign-up-form.tsx";
import { currentUser, hasAnyUser } from "@/server/auth/page-session.ts";
import { isInviteUsable } from "@/server/services/invites.ts";
import { getRuntime } from "@/server/runtime.ts";

export const metadata = { title: "Sign up" };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ invite?: string | string[] }> }) {
  if (await currentUser()) redirect("/");
  const { invite } = await searchParams;
  const token = typeof invite === "string" ? invite : undefined;
  const firstUser = !(await hasAnyUser());
  const inviteOk = token ? await isInviteUsable(getRuntime().prisma, token) : false;
  return (
    <AuthCard title={firstUser ? "Create the first account" : "Join Baton"}>
      {firstUser ? (
        <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">You are the first one here, so your account will be the admin.</p>
      ) : null}
      {firstUser || inviteOk ? (
        <SignUpForm inviteToken={firstUser ? undefined : token} />
      ) : (
        <p role="alert" className="text-sm text-zinc-700 dark:text-zinc-300">
          {token ? "This invite link is used up, has expired or was revoked." : "Sign-up is by invitation."} Ask an admin for an invite
          link, or{" "}
          <a className="text-accent underline" href="/sign-in">
            sign in
          </a>
          .
        </p>
      )}
    </AuthCard>
  );
}
