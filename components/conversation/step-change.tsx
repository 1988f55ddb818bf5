"use client";
/**
 * A workspace step's change in the step drawer: its branch, commits, diff stats,
 * changed files and the diff, highlighted. The diff is the agent's output: shown as
 * text in code blocks, never interpreted.
 */
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import type { StepChange as Change } from "@/server/protocol/rest/workspace.ts";
import { api } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Markdown } from "./markdown.tsx";
import { diffFence, splitDiff } from "./diff-view.ts";

// git's status letters, by the message that names them
const STATUS_WORD = { A: "added", M: "modified", D: "deleted", T: "typeChanged" } as const;
const isKnownStatus = (status: string): status is keyof typeof STATUS_WORD => status in STATUS_WORD;

export function StepChange({ conversationId, planId, stepIndex }: { conversationId: string; planId: string; stepIndex: number }) {
  const t = useTranslations("change");
  const lastSeq = useConversationStore((s) => s.lastSeq);
  const [change, setChange] = useState<Change | null>(null);
  const [error, setError] = useState("");

  useEffect(() => {
    let stale = false;
    api.workspace
      .stepChange({ conversationId, planId, stepIndex })
      .then((data) => !stale && setChange(data.change))
      .catch((caught: unknown) => !stale && setError(caught instanceof Error ? caught.message : String(caught)));
    return () => {
      stale = true;
    };
  }, [conversationId, planId, stepIndex, lastSeq]);

  if (error) {
    return (
      <p role="alert" className="text-xs text-red-600">
        {error}
      </p>
    );
  }
  if (!change) return null;
  const files = splitDiff(change.diff);
  return (
    <section data-testid="step-change" aria-label={t("title")}>
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">{t("title")}</h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className="text-zinc-500">{t("branch")}</dt>
        <dd className="font-mono" data-testid="change-branch">
          {change.branch}
        </dd>
        <dt className="text-zinc-500">{t("commits")}</dt>
        <dd>
          {change.commits.length === 0 ? (
            t("noCommits")
          ) : (
            <ul>
              {change.commits.map((commit) => (
                <li key={commit.sha} title={`${commit.author}, ${commit.at}`}>
                  <span className="font-mono text-zinc-500">{commit.sha.slice(0, 10)}</span> {commit.subject}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt className="text-zinc-500">{t("diff")}</dt>
        <dd data-testid="change-stats">
          {t("filesChanged", { count: change.stats.files.length })}{" "}
          <span className="text-emerald-700 dark:text-emerald-400">+{change.stats.added}</span>{" "}
          <span className="text-red-700 dark:text-red-400">−{change.stats.deleted}</span>
        </dd>
      </dl>
      {change.stats.files.length > 0 ? (
        <table aria-label={t("changedFiles")} className="mt-2 w-full text-left text-xs">
          <tbody>
            {change.stats.files.map((file) => (
              <tr key={file.path} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-1 text-zinc-500">{isKnownStatus(file.status) ? t(`status.${STATUS_WORD[file.status]}`) : file.status}</td>
                <td className="font-mono break-all">{file.path}</td>
                <td className="text-right tabular-nums">{file.binary ? t("binary") : `+${file.added} −${file.deleted}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <div className="mt-2 space-y-2" data-testid="change-diff">
        {files.map((file) => (
          <details key={file.path} open className="rounded border border-zinc-200 dark:border-zinc-800">
            <summary className="cursor-pointer px-2 py-1 font-mono text-xs">{file.path}</summary>
            <div className="overflow-x-auto px-1 text-xs">
              <Markdown text={diffFence(file.text)} />
            </div>
          </details>
        ))}
      </div>
    </section>
  );
}
