import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { axisTicks, formatCost, formatCount, niceCeil, zeroBasedDomain } from "./chart-axis.ts";

describe("chart axes", () => {
  it("end at the next round number", () => {
    expect([0, 0.0003, 0.7, 1, 3.2, 4.5, 42, 1234].map(niceCeil)).toEqual([0, 0.0005, 1, 1, 5, 5, 50, 2000]);
  });

  it("start at zero and cover every value; nothing spent ends at the epsilon, not $4", () => {
    expect(zeroBasedDomain([0, 0, 0], 0.01)).toEqual([0, 0.01]);
    expect(zeroBasedDomain([], 0.01)).toEqual([0, 0.01]);
    expect(zeroBasedDomain([0.0012, 0.0004], 0.0001)).toEqual([0, 0.002]);
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e9, noNaN: true })), (values) => {
        const [low, high] = zeroBasedDomain(values, 1e-4);
        expect(low).toBe(0);
        for (const v of values) expect(high).toBeGreaterThanOrEqual(v);
        // never more than 2.5 times the largest value (round up, not away)
        const max = Math.max(0, ...values);
        if (max > 1e-4) expect(high).toBeLessThanOrEqual(max * 2.5 + 1e-9);
      }),
    );
  });

  it("formats ticks for the scale they are on", () => {
    const domain = zeroBasedDomain([0], 0.01);
    expect(axisTicks(domain).map((v) => formatCost(v, domain[1]))).toEqual(["$0", "$0.0025", "$0.0050", "$0.0075", "$0.0100"]);
    expect(axisTicks([0, 5]).map((v) => formatCost(v, 5))).toEqual(["$0", "$1.25", "$2.50", "$3.75", "$5.00"]);
    expect([0, 950, 1_250, 3_000_000].map(formatCount)).toEqual(["0", "950", "1.3k", "3M"]);
  });
});
