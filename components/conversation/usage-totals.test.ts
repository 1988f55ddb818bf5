import { describe, expect, it } from "vitest";
import { formatUsage, sumUsage, usageOf } from "./usage-totals.ts";

const run = (planId: string | null, tokensIn: number, tokensOut: number, cost: number, usageEstimated = false) => ({
  planId,
  tokensIn,
  tokensOut,
  cost,
  usageEstimated,
});

describe("usage totals", () => {
  const runs = [run(null, 100, 20, 0.001), run("p1", 1_000, 200, 0.5), run("p1", 10, 5, 0), run("p2", 7, 3, 0.25, true)];
  it("sums a plan's runs, or every run of the conversation", () => {
    expect(sumUsage(runs, "p1")).toEqual({ tokens: 1_215, cost: 0.5, runs: 2, estimated: false });
    expect(sumUsage(runs)).toEqual({ tokens: 1_345, cost: 0.751, runs: 4, estimated: true });
    expect(sumUsage(runs, "absent")).toEqual({ tokens: 0, cost: 0, runs: 0, estimated: false });
  });
  it("a total with one estimated run is estimated", () => {
    expect(sumUsage(runs, "p2").estimated).toBe(true);
  });
  const english = ({ tokens, cost }: { tokens: string; cost: string }) => `${tokens} tokens · ${cost}`;
  it("reads as tokens and dollars, marked ≈ when estimated", () => {
    expect(formatUsage({ tokens: 1_215, cost: 0.5, estimated: false }, english)).toBe("1.2k tokens · $0.50");
    expect(formatUsage({ tokens: 42, cost: 0.0012, estimated: false }, english)).toBe("42 tokens · $0.0012");
    expect(formatUsage({ tokens: 2_500_000, cost: 0, estimated: false }, english)).toBe("2.5M tokens · $0");
    expect(formatUsage({ tokens: 42, cost: 0.0012, estimated: true }, english)).toBe("≈ 42 tokens · $0.0012");
  });
  it("adds the ended runs the snapshot summed to the runs the client holds", () => {
    const endedUsage = {
      total: { tokens: 1_000, cost: 1, runs: 5, estimated: false },
      byPlan: { p1: { tokens: 400, cost: 0.25, runs: 2, estimated: true } },
    };
    const held = Object.fromEntries(runs.map((entry, i) => [`r${i}`, entry]));
    expect(usageOf({ runs: held, endedUsage })).toEqual({ tokens: 2_345, cost: 1.751, runs: 9, estimated: true });
    expect(usageOf({ runs: held, endedUsage }, "p1")).toEqual({ tokens: 1_615, cost: 0.75, runs: 4, estimated: true });
    // a plan with nothing ended yet is only its held runs
    expect(usageOf({ runs: held, endedUsage }, "p2")).toEqual({ tokens: 10, cost: 0.25, runs: 1, estimated: true });
    expect(usageOf({ runs: {}, endedUsage }, "absent")).toEqual({ tokens: 0, cost: 0, runs: 0, estimated: false });
  });
});
