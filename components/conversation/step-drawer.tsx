"use client";
import { Fragment, useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import type { PlanDTO } from "@/server/protocol/dto.ts";
import type { StepDetail } from "@/server/protocol/rest/conversations.ts";
import { api } from "../api-client.ts";
import { useErrorText } from "../error-text.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { CloseIcon } from "../ui/icons.tsx";
import { Markdown } from "./markdown.tsx";
import { StepChange } from "./step-change.tsx";
import { Timestamp } from "./message-item.tsx";
import { VISUAL_STYLE, formatDuration, retryStatus, stepVisualState } from "./step-status.ts";
import { useNow } from "./use-now.ts";
import { useStepRunStatus } from "./use-run-status.ts";
import { ESTIMATED_NOTE } from "./usage-totals.ts";
import { causeWord, plainLog, reasonWord } from "./step-words.ts";

/**
 * Everything about one step: what it was asked, what happened, its runs; token counts,
 * ids and the engine's own log lines wait in Details, for whoever asks for them.
 */
export function StepDrawer({
  conversationId,
  plan,
  stepIndex,
  onClose,
}: {
  conversationId: string;
  plan: PlanDTO;
  stepIndex: number;
  onClose: () => void;
}) {
  const t = useTranslations("stepDrawer");
  const tPlan = useTranslations("plan");
  const errorText = useErrorText();
  const step = plan.steps.find((s) => s.index === stepIndex);
  const lastSeq = useConversationStore((s) => s.lastSeq);
  const [detail, setDetail] = useState<StepDetail | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // a retry's countdown ticks, and so does the elapsed time of a running or waiting step
  const retryNow = useNow(
    (step?.status === "pending" && step.retryAt !== null) ||
      ((step?.status === "in_progress" || step?.status === "blocked") && !step.endedAt),
  );
  const runStatus = useStepRunStatus(plan.id, stepIndex);

  // refetch when anything in the conversation moved, so the log stays live
  useEffect(() => {
    let stale = false;
    api.conversations
      .stepDetail({ conversationId, planId: plan.id, stepIndex })
      .then((data) => !stale && setDetail(data))
      .catch((caught: unknown) => !stale && setError(caught instanceof Error ? caught.message : String(caught)));
    return () => {
      stale = true;
    };
  }, [conversationId, plan.id, stepIndex, lastSeq]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  if (!step) return null;
  const state = stepVisualState(step);
  const style = VISUAL_STYLE[state];
  const planLive = plan.status === "running" || plan.status === "paused";
  const retry = retryStatus(step, retryNow);
  const retrying = retry ? tPlan("retryLine", { ...retry }) : null;
  // a step's own run can be stopped; a for_each step collecting its items has none (its items can)
  const stoppable = planLive && step.status === "in_progress" && !(step.forEach && step.forEach.children.length > 0);
  // a failed step is retried while the plan runs, and after it ended too (which reopens the plan);
  // a for_each item is then retried through its for_each step
  const retryAfterEnd = !planLive && step.status === "failed" && step.parentIndex === null;

  async function control(action: "retry" | "skip" | "stop") {
    setBusy(true);
    setError("");
    try {
      await api.conversations.controlPlan({ conversationId, planId: plan.id }, { action, stepIndex });
    } catch (caught) {
      setError(errorText(caught, t("controlFailed", { action })));
    } finally {
      setBusy(false);
    }
  }

  const tokens = (detail?.runs ?? []).reduce(
    (sum, run) => ({
      in: sum.in + run.tokensIn,
      out: sum.out + run.tokensOut,
      cost: sum.cost + run.cost,
      estimated: sum.estimated || run.usageEstimated,
    }),
    { in: 0, out: 0, cost: 0, estimated: false },
  );

  return (
    <section
      role="dialog"
      aria-label={t("label", { index: step.index })}
      data-testid="step-drawer"
      className="absolute inset-0 z-20 flex flex-col overflow-hidden bg-white dark:bg-zinc-950"
    >
      <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 className="min-w-0 flex-1 truncate text-sm font-semibold">
          {step.index}. {step.title}
        </h2>
        <Badge tone={style.tone}>
          <span aria-hidden="true">{style.mark} </span>
          {tPlan(`stepState.${state}`)}
        </Badge>
        <Button variant="ghost" size="sm" onClick={onClose} aria-label={t("close")} autoFocus>
          <CloseIcon size={16} />
        </Button>
      </header>
      <div className="min-h-0 flex-1 space-y-4 overflow-y-auto p-3 text-sm">
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
          <dt className="text-zinc-600 dark:text-zinc-400">{t("who")}</dt>
          <dd>
            {step.assignee === "user" ? tPlan("aPerson") : step.assignee === "commander" ? tPlan("theCommander") : `@${step.assignee}`}
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("waitsFor")}</dt>
          <dd>{step.waitFor.length ? step.waitFor.map((i) => t("stepRef", { index: i })).join(tPlan("listSeparator")) : t("nothing")}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t("ifItFails")}</dt>
          <dd>{t(`onFailure.${step.onFailure}`)}</dd>
          {step.effort && step.effort !== "standard" ? (
            <>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("effort")}</dt>
              <dd data-testid="step-effort">{t("effortLevel", { effort: step.effort })}</dd>
            </>
          ) : null}
          {step.attempts > 1 ? (
            <>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("tries")}</dt>
              <dd>{step.attempts}</dd>
            </>
          ) : null}
          <dt className="text-zinc-600 dark:text-zinc-400">{t("time")}</dt>
          <dd className="tabular-nums">{formatDuration(step.startedAt, step.endedAt, retryNow) ?? t("notStarted")}</dd>
          {tokens.cost > 0 ? (
            <>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("cost")}</dt>
              <dd title={tokens.estimated ? ESTIMATED_NOTE : undefined}>
                {tokens.estimated ? "≈ " : ""}${tokens.cost.toFixed(4)}
              </dd>
            </>
          ) : null}
        </dl>
        {runStatus && step.status === "in_progress" ? (
          <p role="status" className="text-xs text-amber-700 dark:text-amber-400" data-testid="step-run-status">
            {runStatus}
          </p>
        ) : null}
        {retrying ? (
          <p role="status" className="text-xs text-amber-700 dark:text-amber-400" data-testid="step-retry-status">
            {retrying}
            {step.failureReason ? ` · ${t("lastError", { reason: step.failureReason })}` : ""}
          </p>
        ) : null}
        {stoppable ? (
          <div className="flex flex-wrap items-center gap-2">
            <Button size="sm" variant="secondary" onClick={() => control("stop")} disabled={busy} aria-describedby="stop-step-hint">
              {t("stopStep")}
            </Button>
            <p id="stop-step-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
              {t("stopStepHint", { onFailure: t(`onFailure.${step.onFailure}`) })}
            </p>
          </div>
        ) : null}
        {step.status === "failed" && planLive ? (
          <div className="flex gap-2">
            <Button size="sm" onClick={() => control("retry")} disabled={busy}>
              {t("retryStep")}
            </Button>
            <Button size="sm" variant="secondary" onClick={() => control("skip")} disabled={busy}>
              {t("skipStep")}
            </Button>
          </div>
        ) : retryAfterEnd ? (
          <div className="flex flex-wrap items-center gap-2">
            <Button size="sm" onClick={() => control("retry")} disabled={busy} aria-describedby="retry-ended-hint">
              {t("retryStep")}
            </Button>
            <p id="retry-ended-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
              {t("retryReopensHint", { status: tPlan(`status.${plan.status}`) })}
            </p>
          </div>
        ) : null}
        {error ? (
          <p role="alert" className="text-xs text-red-700 dark:text-red-400">
            {error}
          </p>
        ) : null}
        {step.failureReason && !retrying ? (
          <Section title={t("failureReason")}>
            <p className="text-red-700 dark:text-red-400">{step.failureReason}</p>
          </Section>
        ) : null}
        {step.outputSummary ? (
          <Section title={t("summary")}>
            <Markdown text={step.outputSummary} />
          </Section>
        ) : null}
        {step.outputFiles.length ? (
          <Section title={t("files")}>
            <ul className="list-inside list-disc text-xs">
              {step.outputFiles.map((file) => (
                <li key={file}>{file}</li>
              ))}
            </ul>
          </Section>
        ) : null}
        <StepChange conversationId={conversationId} planId={plan.id} stepIndex={stepIndex} />
        <Section title={t("asked")}>
          <pre
            className="max-h-60 overflow-auto whitespace-pre-wrap rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900"
            data-testid="rendered-input"
          >
            {step.renderedInput ?? t("notStartedInput", { template: step.input })}
          </pre>
        </Section>
        <Section title={t("runs")}>
          {detail?.runs.length ? (
            <table aria-label={t("runs")} className="w-full text-left text-xs">
              <thead className="text-zinc-500">
                <tr>
                  <th className="py-1 font-medium">#</th>
                  <th className="font-medium">{t("agent")}</th>
                  <th className="font-medium">{t("status")}</th>
                  <th className="font-medium">{t("cost")}</th>
                </tr>
              </thead>
              <tbody>
                {detail.runs.map((run) => (
                  <tr key={run.id} className="border-t border-zinc-200 dark:border-zinc-800" title={run.error ?? undefined}>
                    <td className="py-1">{run.attempt}</td>
                    <td>
                      {run.agentHandle ? `@${run.agentHandle}` : "—"}
                      <span className="text-zinc-500 dark:text-zinc-400" data-testid="run-model" data-reason={run.modelReason ?? "agent"}>
                        {" · "}
                        {t("modelReason", {
                          reason: reasonWord(run.modelReason),
                          model: run.model,
                          cause: causeWord(step.escalation?.cause),
                        })}
                      </span>
                    </td>
                    <td>{t("runStatus", { status: run.status })}</td>
                    <td title={run.usageEstimated ? ESTIMATED_NOTE : undefined}>
                      {run.usageEstimated ? "≈ " : ""}${run.cost.toFixed(4)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">{detail ? t("noRuns") : t("loading")}</p>
          )}
        </Section>
        <Section title={t("happened")}>
          {detail?.log.length ? (
            <ol className="space-y-1 text-xs" data-testid="execution-log">
              {plainLog(detail.log).map(({ entry, word }) => (
                <li key={entry.id} className="flex gap-2">
                  <Timestamp iso={entry.at} />
                  <Badge tone="neutral">{t(`phase.${word}`)}</Badge>
                  <span className="min-w-0 flex-1 break-words">{entry.message}</span>
                </li>
              ))}
            </ol>
          ) : (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">{detail ? t("nothingYet") : t("loading")}</p>
          )}
        </Section>
        <details className="text-xs" data-testid="step-details">
          <summary className="cursor-pointer font-semibold text-zinc-600 dark:text-zinc-400">{t("details")}</summary>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-zinc-600 dark:text-zinc-400">{t("tokens")}</dt>
            <dd title={tokens.estimated ? ESTIMATED_NOTE : undefined}>
              {tokens.estimated ? "≈ " : ""}
              {t("tokensInOut", { in: tokens.in, out: tokens.out })}
              {tokens.estimated ? ` ${t("estimated")}` : ""}
            </dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t("onFailureRaw")}</dt>
            <dd className="font-mono">{step.onFailure}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t("planId")}</dt>
            <dd className="break-all font-mono">{plan.id}</dd>
            {(detail?.runs ?? []).map((run) => (
              <Fragment key={run.id}>
                <dt className="text-zinc-600 dark:text-zinc-400">{t("run", { attempt: run.attempt })}</dt>
                <dd className="break-all font-mono">
                  {run.id} · {t("runTokens", { in: run.tokensIn, out: run.tokensOut })}
                </dd>
              </Fragment>
            ))}
          </dl>
          <ol className="mt-2 space-y-1" data-testid="full-log">
            {(detail?.log ?? []).map((entry) => (
              <li key={entry.id} className="flex gap-2">
                <Timestamp iso={entry.at} />
                <span className="font-mono text-zinc-600 dark:text-zinc-400">{entry.phase}</span>
                <span className="min-w-0 flex-1 break-words">{entry.message}</span>
              </li>
            ))}
          </ol>
        </details>
      </div>
    </section>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section>
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400">{title}</h3>
      {children}
    </section>
  );
}
