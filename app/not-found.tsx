import Link from "next/link";
import { LogoIcon } from "@/components/ui/icons.tsx";

export const metadata = { title: "Not found" };

/**
 * Baton's own 404: an address that leads nowhere, or a conversation that was deleted or
 * that one is not a member of (the server does not say which, so it leaks nothing).
 */
export default function NotFound() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-4 p-8 text-center" data-testid="not-found">
      <span aria-hidden className="inline-flex h-10 w-10 items-center justify-center rounded-xl bg-accent text-white">
        <LogoIcon size={22} />
      </span>
      <h1 className="text-2xl font-semibold">Nothing here</h1>
      <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">
        This page does not exist, or it is a conversation that was deleted or that you are not in. Someone in it can add you.
      </p>
      <Link
        href="/"
        className="inline-flex h-10 items-center rounded-md bg-accent px-4 text-sm font-medium text-white hover:bg-accent-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      >
        Back to your conversations
      </Link>
    </main>
  );
}
