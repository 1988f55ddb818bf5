import { describe, expect, it } from "vitest";
import { criticalPath } from "./admin-plans.ts";

describe("criticalPath", () => {
  it("follows the longest chain of durations", () => {
    const steps = [
      { index: 1, waitFor: [], duration: 1 },
      { index: 2, waitFor: [1], duration: 10 },
      { index: 3, waitFor: [1], duration: 2 },
      { index: 4, waitFor: [2, 3], duration: 1 },
    ];
    expect([...criticalPath(steps)].sort()).toEqual([1, 2, 4]);
  });

  it("handles an empty plan and independent steps", () => {
    expect(criticalPath([]).size).toBe(0);
    expect([
      ...criticalPath([
        { index: 1, waitFor: [], duration: 1 },
        { index: 2, waitFor: [], duration: 5 },
      ]),
    ]).toEqual([2]);
  });
});
