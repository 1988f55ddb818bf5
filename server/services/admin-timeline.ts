/**
 * The admin timeline's pure parts: how a step's time splits into queued, running,
 * waiting for a person and waiting out a retry (from its runs and forms), and the
 * ticks of the time axis. Times are ms since the plan was created.
 */

export type SegmentKind = "queued" | "running" | "waiting" | "retry";

export interface TimelineSegment {
  kind: SegmentKind;
  start: number;
  end: number;
}

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

/** Step sizes the time axis may use, in ms. */
const TICK_STEPS = [
  100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
];

/**
 * Ticks for a time axis from 0 to at least `span` ms, at a round step: the last tick is
 * the axis's end, so at most `maxTicks` + 1 ticks, the first 0.
 */
export function timeTicks(span: number, maxTicks = 6): number[] {
  const total = Math.max(span, 1);
  const step = TICK_STEPS.find((candidate) => total / candidate <= maxTicks) ?? Math.ceil(total / maxTicks / 3_600_000) * 3_600_000;
  const count = Math.ceil(total / step);
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

/** A tick's label: "0 s", "500 ms", "2.5 s", "1 m 30 s", "1 h 5 m". */
export function formatTick(ms: number): string {
  if (ms === 0) return "0 s";
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  if (ms < 3_600_000) {
    const minutes = Math.floor(ms / 60_000);
    const seconds = Math.round((ms % 60_000) / 1_000);
    return seconds ? `${minutes} m ${seconds} s` : `${minutes} m`;
  }
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.round((ms % 3_600_000) / 60_000);
  return minutes ? `${hours} h ${minutes} m` : `${hours} h`;
}
