import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTick, phoneHidesTick, timeTicks } from "./time-axis.ts";

describe("the time axis", () => {
  it("starts at zero with round steps covering the span", () => {
    expect(timeTicks(0)).toEqual([0, 100]);
    expect(timeTicks(9_000)).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
    fc.assert(
      fc.property(fc.nat(50_000_000), (span) => {
        const ticks = timeTicks(span);
        expect(ticks[0]).toBe(0);
        expect(ticks.length).toBeLessThanOrEqual(7);
        expect(ticks.at(-1)!).toBeGreaterThanOrEqual(span);
        // the axis does not run on past the span by more than one step
        expect(ticks.at(-2) ?? 0).toBeLessThan(Math.max(span, 1));
      }),
    );
  });

  it("labels ticks in the unit that reads best", () => {
    expect([0, 500, 2_500, 90_000, 120_000, 3_900_000].map(formatTick)).toEqual(["0 s", "500 ms", "2.5 s", "1 m 30 s", "2 m", "1 h 5 m"]);
  });
});

describe("the axis on a phone", () => {
  it("shows the first and last labels and never two neighbours (property)", () => {
    expect([0, 1].map((i) => phoneHidesTick(i, 2))).toEqual([false, false]);
    expect([0, 1, 2, 3, 4, 5].map((i) => phoneHidesTick(i, 6))).toEqual([false, true, false, true, true, false]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), (count) => {
        const shown = Array.from({ length: count }, (_, i) => i).filter((i) => !phoneHidesTick(i, count));
        expect(shown[0]).toBe(0);
        expect(shown.at(-1)).toBe(count - 1);
        for (let k = 1; k < shown.length; k += 1) expect(shown[k] - shown[k - 1]).toBeGreaterThanOrEqual(count === 2 ? 1 : 2);
        // at most half the labels, rounded up, plus the last
        expect(shown.length).toBeLessThanOrEqual(Math.ceil(count / 2) + 1);
      }),
    );
  });
});
