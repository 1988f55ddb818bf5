/** The server benchmark's DAGs: heavy-tailed step times, as real agent work is. */
import type { TimedStep } from "../dags.ts";

/**
 * Seeded random DAG: each step waits for up to three earlier steps; most steps take
 * 20–150 ms, about one in seven 150–400 ms (the stragglers a wave scheduler waits for).
 */
export function heavyTailedDag(seed: number, size = 20): TimedStep[] {
  let state = (seed * 2654435761) >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return Array.from({ length: size }, (_, i) => {
    const index = i + 1;
    const parents = i === 0 ? [] : [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => 1 + Math.floor(random() * i)))];
    const sleepMs = random() < 0.85 ? 20 + Math.floor(random() * 131) : 150 + Math.floor(random() * 251);
    return { index, waitFor: parents.sort((a, b) => a - b), sleepMs };
  });
}

export const quantile = (values: number[], q: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};
export const median = (values: number[]) => quantile(values, 0.5);
export const geomean = (values: number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
