"use client";
import { useMemo, useState } from "react";
import { api } from "../api-client.ts";
import type { RunDTO } from "@/server/protocol/dto.ts";
import { unhandled } from "@/server/protocol/exhaustive.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { formatDuration } from "./step-status.ts";
import { useNow } from "./use-now.ts";

/** What a live run is doing, in the words a person would use. */
export function describeRun(run: Pick<RunDTO, "kind" | "agentHandle" | "stepIndex">): string {
  const who = `@${run.agentHandle ?? "agent"}`;
  switch (run.kind) {
    case "chat":
      return `${who} is planning…`;
    case "decision":
      return `${who} is deciding what to do about step ${run.stepIndex ?? "?"}…`;
    case "step":
    case "commander-step":
      return `${who} is working on step ${run.stepIndex ?? "?"}…`;
    case "mention":
      return `${who} is writing…`;
    default:
      return unhandled(run.kind, `${who} is writing…`);
  }
}

const ENDED_PLAN: ReadonlySet<string> = new Set(["completed", "partial", "failed", "cancelled"]);

/**
 * Who is working right now, with elapsed time, live for everyone in the conversation. A
 * run of a plan that has ended is not shown, even before its own end reaches this tab:
 * "@commander is deciding…" under a finished plan would be a lie.
 */
export function ActivityBar() {
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
    if (run.planId && run.kind !== "chat" && !window.confirm("This stops the whole plan. Stop it?")) return;
    setStopping((current) => ({ ...current, [run.id]: true }));
    setError(null);
    try {
      await api.conversations.stopRun({ conversationId: run.conversationId, runId: run.id }, { action: "stop" });
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not stop.");
      setStopping((current) => ({ ...current, [run.id]: false }));
    }
  };
  const shown = live.slice(0, 3);
  return (
    <div
      role="status"
      aria-live="polite"
      aria-label="Agents at work"
      data-testid="activity"
      className="flex flex-wrap gap-x-4 gap-y-1 px-3 pt-2 text-xs text-zinc-600 dark:text-zinc-400"
    >
      {shown.map((run) => (
        <span key={run.id} data-testid="activity-run" className="flex items-center gap-1.5">
          <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-accent" />
          {describeRun(run)}
          <span className="tabular-nums">{formatDuration(run.startedAt, null, now)}</span>
          <button
            type="button"
            data-testid="stop-run"
            aria-label={`Stop ${describeRun(run).replace(/…$/, "")}`}
            disabled={stopping[run.id] === true}
            onClick={() => void stop(run)}
            className="rounded border border-zinc-300 px-1.5 text-[11px] hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
          >
            Stop
          </button>
        </span>
      ))}
      {live.length > shown.length ? <span>and {live.length - shown.length} more</span> : null}
      {error ? <span className="text-red-700 dark:text-red-400">{error}</span> : null}
    </div>
  );
}
