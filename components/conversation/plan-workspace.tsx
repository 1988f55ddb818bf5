"use client";
/**
 * The code a plan's workspace steps produced, under the plan: its branches, a
 * "Merge branches" button for any member that shows what really happened (merged,
 * or a conflict naming files and hunks), and accepting the result: owners
 * fast-forward the base branch, anyone downloads the patch.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import type { PlanDTO } from "@/server/protocol/dto.ts";
import type { MergeResult, PlanWorkspace as Workspace } from "@/server/protocol/rest/workspace.ts";
import { api, apiPath, routes } from "../api-client.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";

export function PlanWorkspace({ conversationId, plan }: { conversationId: string; plan: PlanDTO }) {
  // what the branches depend on: a step starting or ending (not every event of the conversation, each a few git reads)
  const progress = `${plan.status}:${plan.steps.map((step) => step.status).join(",")}`;
  const t = useTranslations("workspace");
  const [workspace, setWorkspace] = useState<Workspace | null>(null);
  const [merge, setMerge] = useState<MergeResult | null>(null);
  const [accepted, setAccepted] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const confirmActions = useRef<HTMLDivElement>(null);
  const [error, setError] = useState("");

  const load = useCallback(
    () =>
      api.workspace
        .plan({ conversationId, planId: plan.id })
        .then(setWorkspace)
        .catch((caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught))),
    [conversationId, plan.id],
  );
  useEffect(() => {
    void load();
  }, [load, progress]);
  useEffect(() => {
    // after the dialog opened (its effect runs first): Enter confirms, Escape cancels
    if (confirming) confirmActions.current?.querySelector("button")?.focus();
  }, [confirming]);

  if (!workspace?.baseBranch || workspace.branches.length === 0) return null;
  const planEnded = plan.status !== "running" && plan.status !== "paused";

  async function act(what: "merge" | "accept") {
    setConfirming(false);
    setBusy(true);
    setError("");
    try {
      if (what === "merge") {
        setMerge(await api.workspace.merge({ conversationId, planId: plan.id }));
        setAccepted(null);
      } else {
        const done = await api.workspace.accept({ conversationId, planId: plan.id });
        setAccepted(t("acceptedAt", { branch: done.baseBranch, commit: done.to.slice(0, 10) }));
      }
      await load();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : t("failed", { what }));
    } finally {
      setBusy(false);
    }
  }

  const result = workspace.result;
  return (
    <section
      className="space-y-1.5 border-b border-zinc-200 px-3 py-2 text-xs dark:border-zinc-800"
      data-testid="plan-workspace"
      aria-label={t("label")}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-zinc-500">{t("branches", { count: workspace.branches.length, base: workspace.baseBranch })}</span>
        {workspace.branches.map((entry) => (
          <code key={entry.branch} className="rounded bg-zinc-100 px-1 dark:bg-zinc-900" title={t("step", { index: entry.stepIndex })}>
            {entry.branch}
          </code>
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={() => act("merge")} disabled={busy || !planEnded} title={planEnded ? undefined : t("whenEnded")}>
          {t("merge")}
        </Button>
        {result && workspace.canAccept && result.canFastForward ? (
          <Button size="sm" variant="secondary" onClick={() => setConfirming(true)} disabled={busy}>
            {t("fastForwardEllipsis", { branch: workspace.baseBranch })}
          </Button>
        ) : null}
        {result ? (
          <a
            className="text-accent underline"
            href={apiPath(routes.workspace.patch, { conversationId, planId: plan.id })}
            download
            data-testid="download-patch"
          >
            {t("downloadPatch")}
          </a>
        ) : null}
        {result?.accepted ? (
          <span className="text-emerald-700 dark:text-emerald-400">{t("acceptedInto", { branch: workspace.baseBranch })}</span>
        ) : null}
      </div>
      {merge?.ok ? (
        <div role="status" data-testid="merge-result" className="text-emerald-800 dark:text-emerald-300">
          {t.rich("merged", {
            count: merge.merged.length,
            branch: merge.branch,
            commit: merge.commit.slice(0, 10),
            files: merge.stats.files.length,
            added: merge.stats.added,
            deleted: merge.stats.deleted,
            code: (chunks) => <code>{chunks}</code>,
          })}
          <ul className="list-inside list-disc">
            {merge.stats.files.map((file) => (
              <li key={file.path} className="font-mono">
                {file.path}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {merge && !merge.ok ? (
        <div role="alert" data-testid="merge-result" className="text-red-700 dark:text-red-400">
          {t("conflict")}
          <ul className="list-inside list-disc">
            {merge.conflicts.map((file) => (
              <li key={file.path}>
                <span className="font-mono">{file.path}</span>
                {file.hunks.length
                  ? ` ${t("conflictLines", { lines: file.hunks.map((hunk) => hunk.line).join(", ") })}`
                  : ` ${t("conflictSide")}`}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {accepted ? (
        <p role="status" className="text-emerald-800 dark:text-emerald-300">
          {accepted}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="text-red-600">
          {error}
        </p>
      ) : null}
      <Dialog open={confirming} onClose={() => setConfirming(false)} title={t("fastForwardQuestion", { branch: workspace.baseBranch })}>
        {result ? (
          <div className="flex flex-col gap-3 text-sm">
            <p>
              {t.rich("fastForwardExplained", {
                branch: workspace.baseBranch,
                commit: result.commit.slice(0, 10),
                code: (chunks) => <code>{chunks}</code>,
              })}
            </p>
            <div className="flex gap-2" ref={confirmActions}>
              <Button size="sm" onClick={() => void act("accept")} disabled={busy}>
                {t("fastForward", { branch: workspace.baseBranch })}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                {t("cancel")}
              </Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </section>
  );
}
