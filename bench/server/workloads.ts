/** The server benchmark's DAGs: heavy-tailed step times, as real agent work is. */
import { seededDag, xorshift, type TimedStep } from "../dags.ts";

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
