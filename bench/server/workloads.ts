/** The server benchmark's DAGs: heavy-tailed step times, as real agent work is. */
import { criticalPathMs, seededDag, xorshift, type TimedStep } from "../dags.ts";
import { criticalPath } from "../../server/core/critical-path.ts";

/**
 * Seeded random DAG: each step waits for up to three earlier steps; most steps take
 * 20–150 ms, about one in seven 150–400 ms (the stragglers a wave scheduler waits for).
 */
export function heavyTailedDag(seed: number, size = 20): TimedStep[] {
  return seededDag(xorshift(seed * 2654435761), size, (random) =>
    random() < 0.85 ? 20 + Math.floor(random() * 131) : 150 + Math.floor(random() * 251),
  );
}

/**
 * Steps as long as real model calls (0.2–4 s each) on a smaller random DAG, so that
 * four of them take about a minute: here the scheduler's overhead should all but vanish.
 */
export function longStepDag(seed: number, size = 12): TimedStep[] {
  return seededDag(xorshift(seed * 2246822519), size, (random) => 200 + Math.floor(random() * 3801));
}

export const quantile = (values: number[], q: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};
export const median = (values: number[]) => quantile(values, 0.5);
export const geomean = (values: number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);

/**
 * Makespan over critical path for a scheduler whose only cost is a fixed `submitMs`
 * before the first step and `hopMs` between a step's end and each dependent's start,
 * with unbounded parallelism: the longest path with every step `hopMs` heavier. What
 * the hop and submission figures alone allow; anything above it is steps getting in
 * each other's way.
 */
export function makespanWithOverheads(steps: TimedStep[], overheads: { hopMs: number; submitMs: number }): number {
  const { hopMs, submitMs } = overheads;
  const longest = criticalPath(steps.map((step) => ({ index: step.index, waitFor: step.waitFor, weight: step.sleepMs + hopMs }))).length;
  return (longest - hopMs + submitMs) / criticalPathMs(steps);
}

/** When one step's model worked, by the server's stamps. */
export interface StepSpan {
  start: number;
  end: number;
}

/** Where a run's time beyond its critical path went, along the path it really took. */
export interface MakespanBreakdown {
  /** submission → the realised path's first model call */
  submitMs: number;
  /** each hop on the path: a step's latest-ending dependency's end → its model call */
  hopsMs: number[];
  /** the path's steps, its last first: hop i is from path[i + 1]'s end to path[i]'s model call */
  path: number[];
  /** Σ on the path of (model call's span − its sleep): a timer firing late, the stream read */
  overrunMs: number;
  /** the last model call's end → the plan's end stamp */
  tailMs: number;
  /** the critical path minus the sleeps on the realised path (≥ 0: another path was longer on paper) */
  shorterPathMs: number;
}

/**
 * Walks back from the step whose model ended last, each time to the dependency that
 * ended last (the one it really waited for), and splits makespan − critical path into
 * submission, hops, overrun and tail; the parts add up to it exactly.
 */
export function makespanBreakdown(
  steps: TimedStep[],
  spans: Map<number, StepSpan>,
  run: { submittedAt: number; endedAt: number },
): MakespanBreakdown {
  const byIndex = new Map(steps.map((step) => [step.index, step]));
  const spanOf = (index: number) => {
    const span = spans.get(index);
    if (!span) throw new Error(`step ${index} has no model span`);
    return span;
  };
  const latest = (indexes: number[]) => indexes.reduce((a, b) => (spanOf(b).end > spanOf(a).end ? b : a));
  let current = latest(steps.map((step) => step.index));
  const tailMs = run.endedAt - spanOf(current).end;
  const hopsMs: number[] = [];
  const path: number[] = [];
  let overrunMs = 0;
  let sleeps = 0;
  for (;;) {
    const step = byIndex.get(current)!;
    const span = spanOf(current);
    path.push(current);
    overrunMs += span.end - span.start - step.sleepMs;
    sleeps += step.sleepMs;
    if (step.waitFor.length === 0) {
      return { submitMs: span.start - run.submittedAt, hopsMs, path, overrunMs, tailMs, shorterPathMs: criticalPathMs(steps) - sleeps };
    }
    const before = latest(step.waitFor);
    hopsMs.push(span.start - spanOf(before).end);
    current = before;
  }
}
