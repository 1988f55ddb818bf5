import { MobileMenuButton } from "@/components/app-shell.tsx";
import { PasswordForm } from "@/components/profile/password-form.tsx";
import { requirePageUser } from "@/server/auth/page-session.ts";

export const metadata = { title: "Profile" };

export default async function ProfilePage() {
  // checked here, not only in a layout: a partial render can skip layouts
  const user = await requirePageUser();
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <MobileMenuButton />
        <h1 className="text-base font-semibold">Profile</h1>
      </header>
      <main className="min-h-0 max-w-xl flex-1 space-y-6 overflow-y-auto p-4">
        <section aria-labelledby="who">
          <h2 id="who" className="mb-2 text-sm font-semibold">
            You
          </h2>
          <dl className="grid grid-cols-[8rem_1fr] gap-y-1 text-sm">
            <dt className="text-zinc-500">Name</dt>
            <dd data-testid="profile-name">{user.name}</dd>
            <dt className="text-zinc-500">Email</dt>
            <dd data-testid="profile-email">{user.email}</dd>
            <dt className="text-zinc-500">Role</dt>
            <dd>{user.role}</dd>
          </dl>
        </section>
        <PasswordForm />
      </main>
    </div>
  );
}
