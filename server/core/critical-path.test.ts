import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { criticalPath, serviceMs, type PathStep } from "./critical-path.ts";

/** A random validated-shape plan: each step waits only for earlier ones. */
const plan = fc
  .array(fc.record({ weight: fc.integer({ min: 0, max: 100 }), deps: fc.array(fc.nat(), { maxLength: 3 }) }), { maxLength: 9 })
  .map((specs): PathStep[] =>
    specs.map((spec, i) => ({
      index: i + 1,
      weight: spec.weight,
      waitFor: i === 0 ? [] : [...new Set(spec.deps.map((dep) => (dep % i) + 1))],
    })),
  );

/** Every chain ending at each step, by brute force (small plans only). */
function heaviestChain(steps: PathStep[]): number {
  const byIndex = new Map(steps.map((step) => [step.index, step]));
  const heaviest = (index: number): number => {
    const step = byIndex.get(index)!;
    return step.weight + Math.max(0, ...step.waitFor.map(heaviest));
  };
  return Math.max(0, ...steps.map((step) => heaviest(step.index)));
}

describe("criticalPath", () => {
  it("is a chain of dependencies whose weight is the heaviest of all chains", () => {
    fc.assert(
      fc.property(plan, (steps) => {
        const { indexes, length } = criticalPath(steps);
        const byIndex = new Map(steps.map((step) => [step.index, step]));
        for (let i = 1; i < indexes.length; i++) expect(byIndex.get(indexes[i])!.waitFor).toContain(indexes[i - 1]);
        // it starts where a chain starts: a step that waits for nothing
        if (indexes.length > 0) expect(byIndex.get(indexes[0])!.waitFor).toEqual([]);
        expect(length).toBe(indexes.reduce((sum, index) => sum + byIndex.get(index)!.weight, 0));
        expect(length).toBe(heaviestChain(steps));
        expect(indexes.length > 0).toBe(steps.length > 0);
      }),
    );
  });

  it("follows the longest chain; independent steps: the heaviest alone", () => {
    const steps = [
      { index: 1, waitFor: [], weight: 1 },
      { index: 2, waitFor: [1], weight: 10 },
      { index: 3, waitFor: [1], weight: 2 },
      { index: 4, waitFor: [2, 3], weight: 1 },
    ];
    expect(criticalPath(steps)).toEqual({ indexes: [1, 2, 4], length: 12 });
    expect(criticalPath([])).toEqual({ indexes: [], length: 0 });
    expect(
      criticalPath([
        { index: 1, waitFor: [], weight: 1 },
        { index: 2, waitFor: [], weight: 5 },
      ]).indexes,
    ).toEqual([2]);
  });

  it("survives a dependency that is not in the plan and a cycle", () => {
    expect(criticalPath([{ index: 2, waitFor: [1], weight: 3 }])).toEqual({ indexes: [2], length: 3 });
    const cyclic = criticalPath([
      { index: 1, waitFor: [2], weight: 1 },
      { index: 2, waitFor: [1], weight: 1 },
    ]);
    expect(cyclic.length).toBeLessThanOrEqual(2);
  });
});

describe("serviceMs", () => {
  it("sums the durations of ended runs only", () => {
    expect(
      serviceMs([
        { start: 10, end: 110 },
        { start: 200, end: null },
        { start: 300, end: 350 },
      ]),
    ).toBe(150);
  });
});
