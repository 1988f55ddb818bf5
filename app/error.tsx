"use client";
import { useEffect, useState } from "react";
import { ErrorPage } from "@/components/error-page.tsx";
import { fetchDatabaseUnreachable } from "@/components/readiness.ts";

/**
 * Baton's own page for a page that failed to render, instead of Next's generic one. In
 * production the browser gets only the error's digest, so it asks the server's readiness
 * whether the database is unreachable, and then says so: nothing is lost, it will pass.
 */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const [cause, setCause] = useState<"unreachable" | "failed">("failed");
  useEffect(() => {
    let current = true;
    void fetchDatabaseUnreachable().then((unreachable) => current && setCause(unreachable ? "unreachable" : "failed"));
    return () => {
      current = false;
    };
  }, [error]);
  return <ErrorPage cause={cause} onRetry={reset} />;
}
