import { describe, expect, it } from "vitest";
import { percentile } from "./hedging.ts";

describe("percentile (the hedging threshold)", () => {
  it("takes the nearest rank, so a p95 of twenty samples is the nineteenth", () => {
    const samples = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(percentile(samples, 0.95)).toBe(190);
    expect(percentile(samples, 0.5)).toBe(100);
    expect(percentile([...samples].reverse(), 0.95)).toBe(190);
  });

  it("is null without samples and the one sample with one", () => {
    expect(percentile([], 0.95)).toBeNull();
    expect(percentile([42], 0.95)).toBe(42);
  });
});
