import type { PlanDTO, StepDTO } from "@/server/protocol/dto.ts";
import { HARD_MAX_RETRIES } from "@/server/protocol/limits.ts";
import { stepActivity, type StepActivity } from "@/server/protocol/statuses.ts";
import type { Tone } from "../ui/badge.tsx";

export const PLAN_TONE: Record<PlanDTO["status"], Tone> = {
  running: "blue",
  paused: "amber",
  completed: "green",
  // something failed or was skipped, a result was still delivered: not green
  partial: "amber",
  failed: "red",
  cancelled: "zinc",
};

/** Where a step waiting out a retry stands: attempt N of M, the next in S seconds (0: now). */
export interface RetryStatus {
  attempt: number;
  total: number;
  seconds: number;
}

/**
 * The status of a step waiting to retry after a transient failure, which the graph and
 * the drawer read as "attempt 2 of 4, retrying in 2 s". Null when the step is not in backoff.
 */
export function retryStatus(
  step: Pick<StepDTO, "status" | "retryAt" | "transientFailures" | "maxRetries">,
  now = Date.now(),
): RetryStatus | null {
  if (step.status !== "pending" || step.retryAt === null || step.transientFailures === 0) return null;
  const total = Math.min(step.maxRetries, HARD_MAX_RETRIES) + 1;
  const seconds = Math.max(0, Math.ceil((Date.parse(step.retryAt) - now) / 1000));
  return { attempt: step.transientFailures + 1, total, seconds };
}

/** Steps by how they ended, for the progress bar: a skipped or failed step is not progress towards a full result. */
export function stepTally(steps: readonly Pick<StepDTO, "status">[]) {
  const count = (status: StepDTO["status"]) => steps.filter((step) => step.status === status).length;
  return { done: count("done"), skipped: count("skipped"), failed: count("failed"), total: steps.length };
}

export function formatDuration(startedAt: string | null, endedAt: string | null, now = Date.now()): string | null {
  if (!startedAt) return null;
  const ms = (endedAt ? Date.parse(endedAt) : now) - Date.parse(startedAt);
  if (ms < 1000) return `${Math.max(0, ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} m ${Math.round(seconds % 60)} s`;
}

/**
 * What a step looks like in the graph and the legend: the core's reading of its status
 * (retrying, waiting for a person…), the same one the admin timeline starts from; every
 * state has its own colour and mark.
 */
export type StepVisualState = StepActivity;
export const stepVisualState = stepActivity;

/** The look of each visual state: node border and fill, badge tone, a mark that does not rely on colour (its words: messages stepState.*). */
export const VISUAL_STYLE: Record<StepVisualState, { node: string; swatch: string; tone: Tone; mark: string }> = {
  queued: {
    node: "border-zinc-300 bg-white dark:border-zinc-600 dark:bg-zinc-900",
    swatch: "border-zinc-400 bg-white dark:bg-zinc-900",
    tone: "zinc",
    mark: "○",
  },
  running: {
    node: "border-sky-500 bg-sky-50 dark:border-sky-400 dark:bg-sky-950/60",
    swatch: "border-sky-500 bg-sky-100 dark:bg-sky-900",
    tone: "blue",
    mark: "▶",
  },
  waiting: {
    node: "border-amber-500 bg-amber-50 dark:border-amber-500 dark:bg-amber-950/50",
    swatch: "border-amber-500 bg-amber-100 dark:bg-amber-900",
    tone: "amber",
    mark: "✎",
  },
  retrying: {
    node: "border-dashed border-orange-500 bg-orange-50 dark:border-orange-400 dark:bg-orange-950/50",
    swatch: "border-dashed border-orange-500 bg-orange-100 dark:bg-orange-900",
    tone: "amber",
    mark: "↻",
  },
  done: {
    node: "border-emerald-500 bg-emerald-50 dark:border-emerald-500 dark:bg-emerald-950/50",
    swatch: "border-emerald-500 bg-emerald-100 dark:bg-emerald-900",
    tone: "green",
    mark: "✓",
  },
  failed: {
    node: "border-red-500 bg-red-50 dark:border-red-500 dark:bg-red-950/50",
    swatch: "border-red-500 bg-red-100 dark:bg-red-900",
    tone: "red",
    mark: "✕",
  },
  skipped: {
    node: "border-dashed border-zinc-400 bg-zinc-100 dark:bg-zinc-800",
    swatch: "border-dashed border-zinc-400 bg-zinc-100 dark:bg-zinc-800",
    tone: "zinc",
    mark: "⤼",
  },
};

export const VISUAL_STATES = Object.keys(VISUAL_STYLE) as StepVisualState[];

/** How a finished plan ended, for the legend: the three outcomes a result can have (words: messages plan.outcome.*). */
export const PLAN_OUTCOMES = ["completed", "partial", "failed"] as const satisfies readonly PlanDTO["status"][];
