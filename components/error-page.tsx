"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button.tsx";
import { LogoIcon } from "@/components/ui/icons.tsx";

/**
 * What a page shows instead of itself when it could not be rendered: "unreachable" when
 * the server found its database unreachable (nothing is lost, it comes back by itself),
 * "failed" for anything else. Retry asks the server to render the page again.
 */
export function ErrorPage({ cause, onRetry }: { cause: "unreachable" | "failed"; onRetry?: () => void }) {
  const t = useTranslations("errorPage");
  const router = useRouter();
  const [retrying, startRetry] = useTransition();
  // refresh re-runs the server components; onRetry (an error boundary's reset) then
  // re-renders the part that failed with what came back
  const retry = () =>
    startRetry(() => {
      router.refresh();
      onRetry?.();
    });
  return (
    <main
      className="flex min-h-dvh flex-1 flex-col items-center justify-center gap-4 p-8 text-center"
      role="alert"
      data-testid="error-page"
      data-cause={cause}
    >
      <span aria-hidden className="inline-flex h-10 w-10 items-center justify-center rounded-xl bg-accent text-white">
        <LogoIcon size={22} />
      </span>
      <h1 className="text-2xl font-semibold">{t(cause === "unreachable" ? "unreachableHeading" : "failedHeading")}</h1>
      <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">
        {t(cause === "unreachable" ? "unreachableExplanation" : "failedExplanation")}
      </p>
      <div className="flex flex-wrap items-center justify-center gap-2">
        <Button onClick={retry} disabled={retrying}>
          {t("retry")}
        </Button>
        <Link
          href="/"
          className="inline-flex h-10 items-center rounded-md px-4 text-sm font-medium text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          {t("back")}
        </Link>
      </div>
    </main>
  );
}
