import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  axisTicks,
  categoryAxis,
  formatCost,
  formatCount,
  LINE_HEIGHT,
  MAX_CATEGORY_CHARS,
  niceCeil,
  zeroBasedDomain,
} from "./chart-axis.ts";

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

describe("category axes", () => {
  const models = ["offline", "offline:light", "offline:deep", "offline:strong"];

  it("keep labels across while each fits its share of the width", () => {
    const axis = categoryAxis({ labels: models, plotWidth: 900, fontSize: 12 });
    expect(axis.angle).toBe(0);
    expect(models.map(axis.format)).toEqual(models);
  });

  it("tilt them on a phone, with room below for the longest, and leave none out", () => {
    // a 390 px phone leaves about 200 px between the two value axes
    const axis = categoryAxis({ labels: models, plotWidth: 200, fontSize: 12 });
    expect(axis.angle).toBeLessThan(0);
    expect(axis.height).toBeGreaterThan(50);
    expect(models.map(axis.format)).toEqual(models);
    // neighbours a line apart, and the tilt no steeper than that needs
    expect((200 / models.length) * Math.sin((-axis.angle * Math.PI) / 180)).toBeGreaterThanOrEqual(LINE_HEIGHT * 12);
    expect(axis.angle).toBe(-40);
  });

  it("tilt further when many labels share the width, up to upright", () => {
    const many = Array.from({ length: 12 }, (_, i) => `offline:model-${i}`);
    const steeper = categoryAxis({ labels: many, plotWidth: 200, fontSize: 12 });
    expect(steeper.angle).toBeLessThan(-40);
    expect((200 / many.length) * Math.sin((-steeper.angle * Math.PI) / 180)).toBeGreaterThanOrEqual(LINE_HEIGHT * 12);
    expect(categoryAxis({ labels: Array.from({ length: 40 }, (_, i) => `m${i}`), plotWidth: 200, fontSize: 12 }).angle).toBe(-90);
  });

  it("cut a very long label, keeping its start, whole characters only", () => {
    const axis = categoryAxis({ labels: ["anthropic:claude-sonnet-4-5-20250929"], plotWidth: 200, fontSize: 12 });
    const shown = axis.format("anthropic:claude-sonnet-4-5-20250929");
    expect(Array.from(shown)).toHaveLength(MAX_CATEGORY_CHARS);
    expect(shown).toMatch(/^anthropic:claude-.*…$/);
    expect(axis.format("模型".repeat(20))).toBe(`${"模型".repeat(20).slice(0, MAX_CATEGORY_CHARS - 1)}…`);
  });
});
