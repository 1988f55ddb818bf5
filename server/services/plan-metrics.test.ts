import { describe, expect, it } from "vitest";
import { computePlanMetrics } from "./plan-metrics.ts";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

describe("computePlanMetrics", () => {
  // 1 → (2 slow, 3 fast) → 4
  const steps = [
    { index: 1, waitFor: [], status: "done", attempts: 1 },
    { index: 2, waitFor: [1], status: "done", attempts: 2 },
    { index: 3, waitFor: [1], status: "done", attempts: 1 },
    { index: 4, waitFor: [2, 3], status: "done", attempts: 1 },
  ];
  const runs = [
    { stepIndex: 1, startedAt: at(10), endedAt: at(110) },
    { stepIndex: 2, startedAt: at(115), endedAt: at(215) }, // failed attempt
    { stepIndex: 2, startedAt: at(300), endedAt: at(600) },
    { stepIndex: 3, startedAt: at(112), endedAt: at(162) },
    { stepIndex: 4, startedAt: at(620), endedAt: at(700) },
  ];
  const metrics = computePlanMetrics({ createdAt: at(0), endedAt: at(710), steps, runs });

  it("measures makespan, service time and retries", () => {
    expect(metrics.makespanMs).toBe(710);
    expect(metrics.steps.map((s) => s.serviceMs)).toEqual([100, 400, 50, 80]);
    expect(metrics.steps.map((s) => s.retries)).toEqual([0, 1, 0, 0]);
  });

  it("measures queue wait from the moment the last dependency ended", () => {
    expect(metrics.steps.map((s) => s.queueWaitMs)).toEqual([10, 5, 2, 20]);
  });

  it("finds the service-weighted critical path and useful parallelism", () => {
    expect(metrics.criticalPathMs).toBe(100 + 400 + 80);
    expect(metrics.steps.filter((s) => s.onCriticalPath).map((s) => s.index)).toEqual([1, 2, 4]);
    expect(metrics.totalAgentWorkMs).toBe(630);
    expect(metrics.usefulParallelism).toBeCloseTo(580 / 630);
  });

  it("leaves what has not happened yet unknown", () => {
    const running = computePlanMetrics({ createdAt: at(0), endedAt: null, steps, runs: runs.slice(0, 1) });
    expect(running.makespanMs).toBeNull();
    expect(running.steps[3].queueWaitMs).toBeNull();
  });
});
