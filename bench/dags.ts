/** Benchmark workloads: plans whose steps sleep for known times, and their critical paths. */
import { criticalPath } from "../server/core/critical-path.ts";

export interface TimedStep {
  index: number;
  waitFor: number[];
  sleepMs: number;
}

export function chain(length: number, sleepMs = 0): TimedStep[] {
  return Array.from({ length }, (_, i) => ({ index: i + 1, waitFor: i === 0 ? [] : [i], sleepMs }));
}

/** A diamond whose one branch is a straggler: a wave scheduler waits for it, Baton must not. */
export function diamondWithStraggler(): TimedStep[] {
  return [
    { index: 1, waitFor: [], sleepMs: 100 },
    { index: 2, waitFor: [1], sleepMs: 900 }, // the straggler
    { index: 3, waitFor: [1], sleepMs: 200 },
    { index: 4, waitFor: [3], sleepMs: 300 },
    { index: 5, waitFor: [4], sleepMs: 300 },
    { index: 6, waitFor: [2, 5], sleepMs: 100 },
  ];
}

/** A xorshift generator from a 32-bit state (0 becomes 1): the benchmarks' only randomness. */
export function xorshift(seedState: number): () => number {
  let state = seedState >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** A random DAG: each step waits for 0–3 earlier steps and sleeps what `sleepMs` draws. */
export function seededDag(random: () => number, size: number, sleepMs: (random: () => number) => number): TimedStep[] {
  return Array.from({ length: size }, (_, i) => {
    const index = i + 1;
    const parents = i === 0 ? [] : [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => 1 + Math.floor(random() * i)))];
    return { index, waitFor: parents.sort((a, b) => a - b), sleepMs: sleepMs(random) };
  });
}

/** Seeded random DAG: each step waits for 0–3 earlier steps; sleeps 50–400 ms. */
export function randomDag(seed: number, size = 20): TimedStep[] {
  return seededDag(xorshift(seed), size, (random) => 50 + Math.floor(random() * 350));
}

/** The longest sleep-weighted path (core/critical-path.ts): no scheduler can finish faster than this. */
export function criticalPathMs(steps: TimedStep[]): number {
  return criticalPath(steps.map((step) => ({ index: step.index, waitFor: step.waitFor, weight: step.sleepMs }))).length;
}

/** Baton plan JSON for a timed DAG; every step uses the offline model's sleep directive. */
export function toPlan(title: string, steps: TimedStep[], maxParallel: number) {
  const handles = ["researcher", "analyst", "writer"];
  return {
    title,
    max_parallel: maxParallel,
    steps: steps.map((step) => ({
      index: step.index,
      title: `step ${step.index}`,
      assignee: handles[step.index % handles.length],
      input: `@offline sleep=${step.sleepMs}\nwork item ${step.index}`,
      wait_for: step.waitFor,
      on_failure: "abort_plan",
    })),
  };
}
