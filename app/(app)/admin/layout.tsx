import Link from "next/link";
import { MobileMenuButton } from "@/components/app-shell.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";

const TABS = [
  { href: "/admin/agents", label: "Agents" },
  { href: "/admin/plans", label: "Plan history" },
  { href: "/admin/usage", label: "Usage" },
  { href: "/admin/providers", label: "Providers" },
  { href: "/admin/repositories", label: "Repositories" },
  { href: "/admin/invites", label: "Invites" },
  { href: "/admin/audit", label: "Audit log" },
];

export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  await requirePageAdmin();
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <MobileMenuButton />
        <h1 className="text-base font-semibold">Admin</h1>
        <nav aria-label="Admin sections" className="flex gap-1 overflow-x-auto text-sm">
          {TABS.map((tab) => (
            <Link key={tab.href} href={tab.href} className="rounded-md px-2 py-1 hover:bg-zinc-100 dark:hover:bg-zinc-800">
              {tab.label}
            </Link>
          ))}
        </nav>
      </header>
      <main className="min-h-0 flex-1 overflow-y-auto p-4">{children}</main>
    </div>
  );
}
