import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { criticalPathMs } from "../dags.ts";
import { heavyTailedDag, makespanBreakdown, type StepSpan } from "./workloads.ts";

/** Simulates a run: each step starts `hop` after its last dependency ends (or `submit` after 0) and overruns by `overrun`. */
function simulate(seed: number, submit: number, hop: (index: number) => number, overrun: (index: number) => number) {
  const steps = heavyTailedDag(seed);
  const spans = new Map<number, StepSpan>();
  for (const step of steps) {
    const ready = step.waitFor.length === 0 ? submit : Math.max(...step.waitFor.map((i) => spans.get(i)!.end)) + hop(step.index);
    spans.set(step.index, { start: ready, end: ready + step.sleepMs + overrun(step.index) });
  }
  const lastEnd = Math.max(...[...spans.values()].map((span) => span.end));
  return { steps, spans, run: { submittedAt: 0, endedAt: lastEnd + 2 } };
}

describe("makespanBreakdown", () => {
  it("splits makespan − critical path into parts that add up to it exactly", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 20, maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 20, maxLength: 20 }),
        (seed, submit, hops, overruns) => {
          const { steps, spans, run } = simulate(
            seed,
            submit,
            (i) => hops[i - 1],
            (i) => overruns[i - 1],
          );
          const parts = makespanBreakdown(steps, spans, run);
          const sum = parts.submitMs + parts.hopsMs.reduce((a, b) => a + b, 0) + parts.overrunMs + parts.tailMs - parts.shorterPathMs;
          expect(sum).toBe(run.endedAt - run.submittedAt - criticalPathMs(steps));
          expect(parts.shorterPathMs).toBeGreaterThanOrEqual(0);
          expect(parts.tailMs).toBe(2);
          expect(parts.submitMs).toBe(submit);
          // the path runs from the step that ended last back to a root, each step waiting for the next
          const byIndex = new Map(steps.map((step) => [step.index, step]));
          expect(parts.path).toHaveLength(parts.hopsMs.length + 1);
          expect(spans.get(parts.path[0])!.end).toBe(Math.max(...[...spans.values()].map((span) => span.end)));
          expect(byIndex.get(parts.path.at(-1)!)!.waitFor).toEqual([]);
          parts.path.slice(1).forEach((before, i) => {
            expect(byIndex.get(parts.path[i])!.waitFor).toContain(before);
            expect(parts.hopsMs[i]).toBe(spans.get(parts.path[i])!.start - spans.get(before)!.end);
          });
        },
      ),
    );
  });

  it("with no overheads, finds the critical path itself", () => {
    const { steps, spans, run } = simulate(
      7,
      0,
      () => 0,
      () => 0,
    );
    const parts = makespanBreakdown(steps, spans, run);
    expect(parts.hopsMs.every((hop) => hop === 0)).toBe(true);
    expect(parts.overrunMs).toBe(0);
    expect(parts.shorterPathMs).toBe(0);
  });

  it("charges a hop to the step that waited, on the path it really took", () => {
    const { steps, spans, run } = simulate(
      3,
      5,
      () => 4,
      () => 1,
    );
    const parts = makespanBreakdown(steps, spans, run);
    expect(parts.hopsMs.length).toBeGreaterThan(0);
    expect(parts.hopsMs.every((hop) => hop === 4)).toBe(true);
    expect(parts.overrunMs).toBe(parts.hopsMs.length + 1);
  });

  it("names a step whose span is missing", () => {
    const { steps, spans, run } = simulate(
      1,
      0,
      () => 0,
      () => 0,
    );
    spans.delete(steps.at(-1)!.index);
    expect(() => makespanBreakdown(steps, spans, run)).toThrow(/has no model span/);
  });
});
