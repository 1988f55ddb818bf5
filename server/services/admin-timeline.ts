/**
 * The admin timeline's pure part: how a step's time splits into queued, running,
 * waiting for a person, waiting for the commander's decision and waiting out a retry
 * (from its runs and forms), and the one phase word its row shows. Times are ms since
 * the plan was created. The time axis is drawn by components/admin/time-axis.ts.
 */
import type { SegmentKind, StepPhase, TimelineSegment } from "../protocol/rest/admin-views.ts";
import { stepActivity } from "../core/status.ts";
import type { StepStatus } from "../core/types.ts";

export interface SegmentInput {
  /** when every dependency had ended (null: never ready) */
  readyAt: number | null;
  /** when the step ended (null: not yet) */
  endedAt: number | null;
  /** the time now, or the plan's end: where an open interval stops */
  now: number;
  /** a failed step whose fate the commander has not decided yet: its wait goes on until now */
  decisionPending?: boolean;
  /** the step's runs (attempts, resumes, and the commander's decisions about it: kind "decision") */
  runs: { startedAt: number | null; endedAt: number | null; status: string; kind?: string }[];
  /** the step's forms: opened, and answered or closed */
  forms: { openedAt: number; closedAt: number | null }[];
}

/**
 * A step's time as consecutive segments: before its first run or form it is queued;
 * each run is running, except the commander's decision about it, which is deciding;
 * each open form is waiting for a person; a gap after a failed run is a retry wait, any
 * other gap (a resume waiting for a slot) queued again. A failed step waiting for a
 * decision is deciding from its failure until now. Segments are sorted, do not overlap
 * and have positive length.
 */
export function stepSegments(input: SegmentInput): TimelineSegment[] {
  const deciding = input.decisionPending === true;
  const stop = deciding || input.endedAt === null ? input.now : input.endedAt;
  const clip = (at: number | null) => Math.min(at ?? stop, stop);
  const busy: (TimelineSegment & { failed: boolean })[] = [
    ...input.runs
      .filter((run) => run.startedAt !== null)
      .map((run) => ({
        kind: run.kind === "decision" ? ("deciding" as const) : ("running" as const),
        start: run.startedAt!,
        end: clip(run.endedAt),
        failed: run.status === "failed",
      })),
    ...input.forms.map((form) => ({ kind: "waiting" as const, start: form.openedAt, end: clip(form.closedAt), failed: false })),
  ]
    .filter((segment) => segment.end > segment.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const segments: TimelineSegment[] = [];
  const push = (kind: SegmentKind, start: number, end: number) => {
    if (end <= start) return;
    const last = segments.at(-1);
    // the wait before a decision run and the run itself read as one stretch of deciding
    if (last && last.kind === kind && last.end === start) last.end = end;
    else segments.push({ kind, start, end });
  };
  let at = input.readyAt ?? (busy.length ? busy[0].start : stop);
  let lastFailed = false;
  let first = true;
  for (const segment of busy) {
    // a form opened while its run was still finishing: the person's wait starts where the run stops
    const start = Math.max(segment.start, at);
    // the gap after a failure that a decision follows is the commander's to account for, not a retry
    const gap: SegmentKind = first ? "queued" : lastFailed ? (segment.kind === "deciding" ? "deciding" : "retry") : "queued";
    push(gap, at, start);
    push(segment.kind, start, segment.end);
    if (segment.end > at) at = segment.end;
    lastFailed = segment.failed;
    first = false;
  }
  if (deciding) push("deciding", at, stop);
  else if (input.endedAt === null && input.readyAt !== null) push(lastFailed ? "retry" : "queued", at, stop);
  return segments;
}

/**
 * What a step's row says it is doing or did. A failed step the commander has yet to
 * decide about is "deciding", never "running"; a pending step in backoff is "retrying";
 * a blocked one (an open form) is "waiting" for a person.
 */
export function stepPhase(step: {
  status: StepStatus;
  decisionPending: boolean;
  retryAt: Date | null;
  transientFailures: number;
}): StepPhase {
  return step.status === "failed" && step.decisionPending ? "deciding" : stepActivity(step);
}

/** The plan's phase, for the page's header: a decision or a person it waits for says so. */
export function planPhaseNote(steps: readonly { index: number; phase: StepPhase }[]): string | null {
  const deciding = steps.filter((step) => step.phase === "deciding").map((step) => step.index);
  const waiting = steps.filter((step) => step.phase === "waiting").map((step) => step.index);
  const list = (indexes: number[]) => `${indexes.length === 1 ? "step" : "steps"} ${indexes.join(", ")}`;
  const notes = [
    deciding.length ? `waiting for a decision about ${list(deciding)}` : null,
    waiting.length ? `waiting for a person on ${list(waiting)}` : null,
  ].filter(Boolean);
  return notes.length ? notes.join("; ") : null;
}
