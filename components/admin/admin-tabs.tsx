"use client";
/**
 * The admin sections as tabs: the current one is marked (for eyes and screen readers),
 * and on a phone the row scrolls sideways instead of cutting the last tabs off.
 */
import Link from "next/link";
import { usePathname } from "next/navigation";

export const ADMIN_SECTIONS = [
  { href: "/admin/agents", label: "Agents" },
  { href: "/admin/plans", label: "Plan history" },
  { href: "/admin/usage", label: "Usage" },
  { href: "/admin/providers", label: "Providers" },
  { href: "/admin/repositories", label: "Repositories" },
  { href: "/admin/invites", label: "Invites" },
  { href: "/admin/audit", label: "Audit log" },
] as const;

export function AdminTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin sections" className="-mb-2 flex min-w-0 flex-1 gap-1 overflow-x-auto pb-2 text-sm" data-testid="admin-tabs">
      {ADMIN_SECTIONS.map((tab) => {
        const current = pathname === tab.href || pathname.startsWith(`${tab.href}/`);
        return (
          <Link
            key={tab.href}
            href={tab.href}
            aria-current={current ? "page" : undefined}
            className={`shrink-0 whitespace-nowrap rounded-md px-2 py-1 ${
              current
                ? "bg-zinc-200 font-semibold text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
                : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
