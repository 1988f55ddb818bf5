/**
 * The admin timeline's pure part: how a step's time splits into queued, running,
 * waiting for a person and waiting out a retry (from its runs and forms). Times are
 * ms since the plan was created. The time axis is drawn by components/admin/time-axis.ts.
 */
import type { SegmentKind, TimelineSegment } from "../protocol/rest/admin-views.ts";

export interface SegmentInput {
  /** when every dependency had ended (null: never ready) */
  readyAt: number | null;
  /** when the step ended (null: not yet) */
  endedAt: number | null;
  /** the time now, or the plan's end: where an open interval stops */
  now: number;
  /** the step's runs (attempts, resumes) */
  runs: { startedAt: number | null; endedAt: number | null; status: string }[];
  /** the step's forms: opened, and answered or closed */
  forms: { openedAt: number; closedAt: number | null }[];
}

/**
 * A step's time as consecutive segments: before its first run or form it is queued;
 * each run is running; each open form is waiting for a person; a gap after a failed
 * run is a retry wait, any other gap (a resume waiting for a slot) queued again.
 * Segments are sorted, do not overlap and have positive length.
 */
export function stepSegments(input: SegmentInput): TimelineSegment[] {
  const stop = input.endedAt ?? input.now;
  const clip = (at: number | null) => Math.min(at ?? stop, stop);
  const busy: (TimelineSegment & { failed: boolean })[] = [
    ...input.runs
      .filter((run) => run.startedAt !== null)
      .map((run) => ({ kind: "running" as const, start: run.startedAt!, end: clip(run.endedAt), failed: run.status === "failed" })),
    ...input.forms.map((form) => ({ kind: "waiting" as const, start: form.openedAt, end: clip(form.closedAt), failed: false })),
  ]
    .filter((segment) => segment.end > segment.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const segments: TimelineSegment[] = [];
  const push = (kind: SegmentKind, start: number, end: number) => {
    if (end > start) segments.push({ kind, start, end });
  };
  let at = input.readyAt ?? (busy.length ? busy[0].start : stop);
  let lastFailed = false;
  let first = true;
  for (const segment of busy) {
    // a form opened while its run was still finishing: the person's wait starts where the run stops
    const start = Math.max(segment.start, at);
    push(first || !lastFailed ? "queued" : "retry", at, start);
    push(segment.kind, start, segment.end);
    if (segment.end > at) at = segment.end;
    lastFailed = segment.failed;
    first = false;
  }
  if (input.endedAt === null && input.readyAt !== null) push(lastFailed ? "retry" : "queued", at, stop);
  return segments;
}
