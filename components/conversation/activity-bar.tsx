"use client";
import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { api } from "../api-client.ts";
import type { RunDTO } from "@/server/protocol/dto.ts";
import { unhandled } from "@/server/protocol/exhaustive.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { formatDuration } from "./step-status.ts";
import { useNow } from "./use-now.ts";
import { useErrorText } from "../error-text.ts";

type ActivityWords = ReturnType<typeof useTranslations<"activity">>;

/** What a live run is doing, in the words a person would use (without the trailing "…"). */
export function describeRun(run: Pick<RunDTO, "kind" | "agentHandle" | "stepIndex">, t: ActivityWords): string {
  const who = `@${run.agentHandle ?? "agent"}`;
  const step = String(run.stepIndex ?? "?");
  switch (run.kind) {
    case "chat":
      return t("planning", { who });
    case "decision":
      return t("deciding", { who, step });
    case "step":
    case "commander-step":
      return t("working", { who, step });
    case "mention":
      return t("writing", { who });
    default:
      return unhandled(run.kind, t("writing", { who }));
  }
}

const ENDED_PLAN: ReadonlySet<string> = new Set(["completed", "partial", "failed", "cancelled"]);

/**
 * Who is working right now, with elapsed time, live for everyone in the conversation. A
 * run of a plan that has ended is not shown, even before its own end reaches this tab:
 * "@commander is deciding…" under a finished plan would be a lie.
 */
export function ActivityBar() {
  const t = useTranslations("activity");
  const errorText = useErrorText();
  const runs = useConversationStore((s) => s.runs);
  const plans = useConversationStore((s) => s.plans);
  const [stopping, setStopping] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<string | null>(null);
  const live = useMemo(
    () =>
      Object.values(runs)
        .filter((run) => run.status === "running" || run.status === "queued")
        .filter((run) => !(run.planId && plans[run.planId] && ENDED_PLAN.has(plans[run.planId].status)))
        .sort((a, b) => (a.startedAt ?? "").localeCompare(b.startedAt ?? "")),
    [runs, plans],
  );
  const now = useNow(live.length > 0);
  if (live.length === 0) return null;
  const stop = async (run: RunDTO) => {
    // Stop beside a step's run stops that step only; a commander's decision run belongs to no step and stops its plan
    const ofStep = run.planId !== null && run.stepIndex !== null && (run.kind === "step" || run.kind === "commander-step");
    if (ofStep && !window.confirm(t("confirmStopStep", { step: run.stepIndex ?? 0 }))) return;
    if (run.planId && run.kind === "decision" && !window.confirm(t("confirmStopPlan"))) return;
    setStopping((current) => ({ ...current, [run.id]: true }));
    setError(null);
    try {
      await api.conversations.stopRun({ conversationId: run.conversationId, runId: run.id }, { action: "stop" });
    } catch (caught) {
      setError(errorText(caught, t("stopFailed")));
      setStopping((current) => ({ ...current, [run.id]: false }));
    }
  };
  const shown = live.slice(0, 3);
  return (
    <div
      role="status"
      aria-live="polite"
      aria-label={t("label")}
      data-testid="activity"
      className="flex flex-wrap gap-x-4 gap-y-1 px-3 pt-2 text-xs text-zinc-600 dark:text-zinc-400"
    >
      {shown.map((run) => (
        <span key={run.id} data-testid="activity-run" className="flex items-center gap-1.5">
          <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-accent" />
          {`${describeRun(run, t)}…`}
          <span className="tabular-nums">{formatDuration(run.startedAt, null, now)}</span>
          <button
            type="button"
            data-testid="stop-run"
            aria-label={t("stopLabel", { what: describeRun(run, t) })}
            disabled={stopping[run.id] === true}
            onClick={() => void stop(run)}
            className="rounded border border-zinc-300 px-1.5 text-[11px] hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
          >
            {t("stop")}
          </button>
        </span>
      ))}
      {live.length > shown.length ? <span>{t("more", { count: live.length - shown.length })}</span> : null}
      {error ? <span className="text-red-700 dark:text-red-400">{error}</span> : null}
    </div>
  );
}
