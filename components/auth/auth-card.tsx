import type { ReactNode } from "react";
import { ThemeToggle } from "../theme-toggle.tsx";
import { LogoIcon } from "../ui/icons.tsx";

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-full flex-col items-center justify-center bg-zinc-50 px-4 py-12 dark:bg-zinc-950">
      <div className="absolute right-4 top-4">
        <ThemeToggle />
      </div>
      <div className="mb-6 flex items-center gap-2 text-xl font-semibold">
        <span aria-hidden className="inline-flex h-8 w-8 items-center justify-center rounded-lg bg-accent text-white">
          <LogoIcon size={18} />
        </span>
        Baton
      </div>
      <section className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <h1 className="mb-4 text-lg font-semibold">{title}</h1>
        {children}
      </section>
    </main>
  );
}
