"use client";
import { api } from "./api-client.ts";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";
import { useEffect, type ReactNode } from "react";
import { ADMIN_SECTIONS } from "./admin/admin-tabs.tsx";
import { ConversationSidebar, type SidebarConversation, type SidebarInvitation } from "./conversation-sidebar.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";
import { useSidebarStore } from "./stores/sidebar-store.ts";
import { Avatar } from "./ui/avatar.tsx";
import { LogoIcon, MenuIcon } from "./ui/icons.tsx";

interface ShellUser {
  id: string;
  name: string;
  email: string;
  role: "admin" | "member";
}

async function signOut() {
  // signed out or not (an expired session answers 401), the sign-in page is where to go
  await api.account.signOut({}).catch(() => undefined);
  window.location.assign("/sign-in");
}

/** Sidebar beside the page on wide screens; a slide-over drawer at phone width. */
export function AppShell({
  user,
  conversations,
  invitations = [],
  children,
}: {
  user: ShellUser;
  conversations: SidebarConversation[];
  invitations?: SidebarInvitation[];
  children: ReactNode;
}) {
  const mobileOpen = useSidebarStore((s) => s.mobileOpen);
  const setMobileOpen = useSidebarStore((s) => s.setMobileOpen);
  const pathname = usePathname();
  const t = useTranslations("shell");
  const tAdmin = useTranslations("admin.sections");
  // a new page (a conversation created or opened, an admin screen) closes the phone drawer
  useEffect(() => setMobileOpen(false), [pathname, setMobileOpen]);
  return (
    <div className="flex h-dvh overflow-hidden">
      {mobileOpen ? <div aria-hidden className="fixed inset-0 z-30 bg-black/40 md:hidden" onClick={() => setMobileOpen(false)} /> : null}
      <aside
        aria-label={t("conversations")}
        className={`fixed inset-y-0 left-0 z-40 flex w-72 flex-col border-r border-zinc-200 bg-zinc-50 transition-transform dark:border-zinc-800 dark:bg-zinc-900 md:static md:translate-x-0 ${mobileOpen ? "translate-x-0" : "-translate-x-full"}`}
      >
        <div className="flex items-center justify-between px-4 py-3">
          <Link href="/" className="flex items-center gap-2 font-semibold" onClick={() => setMobileOpen(false)}>
            <span aria-hidden className="inline-flex h-7 w-7 items-center justify-center rounded-lg bg-accent text-white">
              <LogoIcon size={16} />
            </span>
            Baton
          </Link>
          <ThemeToggle />
        </div>
        <ConversationSidebar conversations={conversations} invitations={invitations} />
        <div className="border-t border-zinc-200 p-3 dark:border-zinc-800">
          {user.role === "admin" ? (
            <nav aria-label={tAdmin("title")} className="mb-2 flex flex-wrap gap-x-3 gap-y-1 text-sm">
              {ADMIN_SECTIONS.map((section) => (
                <Link key={section.href} className="text-zinc-600 hover:underline dark:text-zinc-400" href={section.href}>
                  {tAdmin(section.key)}
                </Link>
              ))}
            </nav>
          ) : null}
          <div className="flex items-center gap-2">
            <Avatar name={user.name} />
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium" data-testid="current-user">
                {user.name}
              </p>
              <p className="truncate text-xs text-zinc-500">
                {t("role", { role: user.role })} ·{" "}
                <Link href="/profile" className="hover:underline">
                  {t("profile")}
                </Link>{" "}
                ·{" "}
                <Link href="/settings/tokens" className="hover:underline">
                  {t("apiTokens")}
                </Link>
              </p>
            </div>
            <button
              type="button"
              onClick={signOut}
              className="rounded-md px-2 py-1 text-sm text-zinc-600 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800"
            >
              {t("signOut")}
            </button>
          </div>
        </div>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">{children}</div>
    </div>
  );
}

/** The ☰ button pages put in their header at phone width. */
export function MobileMenuButton() {
  const setMobileOpen = useSidebarStore((s) => s.setMobileOpen);
  const t = useTranslations("shell");
  return (
    <button
      type="button"
      aria-label={t("openConversations")}
      onClick={() => setMobileOpen(true)}
      className="rounded-md p-2 hover:bg-zinc-100 dark:hover:bg-zinc-800 md:hidden"
    >
      <MenuIcon />
    </button>
  );
}
