/** The event loop's lateness: tick intervals with the sampling interval taken out. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { lateness } from "./event-loop-delay.ts";

/** a histogram of these tick intervals (ms), as Node's reports them (ns) */
function intervals(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: ms.length,
    percentile: (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] * 1e6,
    max: sorted.at(-1)! * 1e6,
    mean: (ms.reduce((sum, value) => sum + value, 0) / ms.length) * 1e6,
  };
}

describe("lateness", () => {
  it("reads an idle loop's ticks, one interval apart, as no delay", () => {
    expect(lateness(intervals([10.1, 10.05, 10.2, 9.98]), 10)).toEqual({
      p50: expect.closeTo(0.00005, 6),
      p90: expect.closeTo(0.0002, 6),
      p99: expect.closeTo(0.0002, 6),
      max: expect.closeTo(0.0002, 6),
      mean: expect.closeTo(0.0000825, 6),
    });
  });

  it("is each statistic of the intervals less the resolution, never below zero", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 5, max: 500, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 20 }),
        (ms, resolution) => {
          const histogram = intervals(ms);
          const figures = lateness(histogram, resolution);
          expect(figures.max).toBeCloseTo(Math.max(0, Math.max(...ms) - resolution) / 1000, 9);
          expect(figures.p99).toBeCloseTo(Math.max(0, histogram.percentile(99) / 1e6 - resolution) / 1000, 9);
          for (const value of Object.values(figures)) expect(value).toBeGreaterThanOrEqual(0);
          expect(figures.p50).toBeLessThanOrEqual(figures.p99);
          expect(figures.p99).toBeLessThanOrEqual(figures.max);
        },
      ),
    );
  });

  it("has no figures before the first tick", () => {
    expect(lateness({ count: 0, percentile: () => 0, max: 0, mean: Number.NaN }, 10).p99).toBeNaN();
  });
});
