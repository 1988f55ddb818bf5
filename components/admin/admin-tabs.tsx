"use client";
/**
 * The admin sections as tabs: the current one is marked (for eyes and screen readers),
 * and on a phone the row scrolls sideways instead of cutting the last tabs off.
 */
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";

/** `key`: the section's name in messages/*.json, under admin.sections */
export const ADMIN_SECTIONS = [
  { href: "/admin/agents", key: "agents" },
  { href: "/admin/plans", key: "plans" },
  { href: "/admin/usage", key: "usage" },
  { href: "/admin/providers", key: "providers" },
  { href: "/admin/repositories", key: "repositories" },
  { href: "/admin/invites", key: "invites" },
  { href: "/admin/audit", key: "audit" },
] as const;

export function AdminTabs() {
  const t = useTranslations("admin.sections");
  const pathname = usePathname();
  return (
    <nav aria-label={t("label")} className="-mb-2 flex min-w-0 flex-1 gap-1 overflow-x-auto pb-2 text-sm" data-testid="admin-tabs">
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
            {t(tab.key)}
          </Link>
        );
      })}
    </nav>
  );
}
