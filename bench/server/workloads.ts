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
