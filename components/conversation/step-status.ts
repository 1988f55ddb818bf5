import type { StepDTO } from "@/server/protocol/dto.ts";
import type { Tone } from "../ui/badge.tsx";

/** Node colours by step status (border, fill) and the badge tone that goes with them. */
export const STEP_STYLE: Record<StepDTO["status"], { node: string; tone: Tone; label: string }> = {
  pending: { node: "border-zinc-300 bg-white dark:border-zinc-600 dark:bg-zinc-900", tone: "zinc", label: "pending" },
  in_progress: { node: "border-sky-500 bg-sky-50 dark:border-sky-400 dark:bg-sky-950/60", tone: "blue", label: "in progress" },
  done: { node: "border-emerald-500 bg-emerald-50 dark:border-emerald-500 dark:bg-emerald-950/50", tone: "green", label: "done" },
  failed: { node: "border-red-500 bg-red-50 dark:border-red-500 dark:bg-red-950/50", tone: "red", label: "failed" },
  skipped: { node: "border-dashed border-zinc-400 bg-zinc-100 opacity-70 dark:bg-zinc-800", tone: "zinc", label: "skipped" },
  blocked: { node: "border-amber-500 bg-amber-50 dark:border-amber-500 dark:bg-amber-950/50", tone: "amber", label: "blocked" },
};

export const PLAN_TONE: Record<string, Tone> = {
  running: "blue",
  paused: "amber",
  completed: "green",
  failed: "red",
  cancelled: "zinc",
};

export function formatDuration(startedAt: string | null, endedAt: string | null, now = Date.now()): string | null {
  if (!startedAt) return null;
  const ms = (endedAt ? Date.parse(endedAt) : now) - Date.parse(startedAt);
  if (ms < 1000) return `${Math.max(0, ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} m ${Math.round(seconds % 60)} s`;
}
