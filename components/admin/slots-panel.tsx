"use client";
/**
 * Admin → Repositories' slots view: each repository's pool use (slots whose step
 * runs, against BATON_SLOTS_PER_REPO) and the slots that have a worktree on disk.
 */
import Link from "next/link";
import { useState } from "react";
import { useTranslations } from "next-intl";
import type { SlotsOverview } from "@/server/protocol/rest/workspace.ts";
import { api } from "../api-client.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText } from "../ui/field.tsx";
import { useErrorText } from "../error-text.ts";

export function SlotsPanel({ initial }: { initial: SlotsOverview }) {
  const t = useTranslations("admin.slots");
  const errorText = useErrorText();
  const [overview, setOverview] = useState(initial);
  const [error, setError] = useState("");

  async function refresh() {
    setError("");
    try {
      setOverview(await api.workspace.slots());
    } catch (caught) {
      setError(errorText(caught, t("loadFailed")));
    }
  }

  return (
    <section className="flex flex-col gap-3" aria-labelledby="slots-heading" data-testid="slots-view">
      <div className="flex items-center gap-3">
        <h2 id="slots-heading" className="text-lg font-semibold">
          {t("title")}
        </h2>
        <Button size="sm" variant="secondary" onClick={() => void refresh()}>
          {t("refresh")}
        </Button>
      </div>
      <p className="text-xs text-zinc-500">{t("intro")}</p>
      <ErrorText>{error}</ErrorText>
      {overview.repositories.length === 0 ? <p className="text-sm text-zinc-500">{t("noRepositories")}</p> : null}
      {overview.repositories.map((repository) => (
        <div key={repository.id} className="flex flex-col gap-1" data-testid={`pool-${repository.name}`}>
          <h3 className="text-sm font-semibold">
            {repository.name}{" "}
            <span className="font-normal text-zinc-600 dark:text-zinc-400" data-testid="pool-use">
              {t("inUse", { inUse: repository.inUse, limit: repository.limit })}
            </span>
          </h3>
          {repository.active.length === 0 ? (
            <p className="text-xs text-zinc-500">{t("noWorktree")}</p>
          ) : (
            <ul className="text-xs">
              {repository.active.map((slot) => (
                <li key={slot.branch} className="flex flex-wrap gap-2">
                  <code>{slot.branch}</code>
                  <span>{t("step", { index: slot.stepIndex, status: slot.stepStatus })}</span>
                  {slot.conversationId ? (
                    <Link className="text-accent underline" href={`/c/${slot.conversationId}`}>
                      {slot.planTitle}
                    </Link>
                  ) : (
                    <span>{slot.planTitle}</span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </section>
  );
}
