import { describe, expect, it } from "vitest";
import { addUsage, budgetRefusal, planUsage } from "./budget.ts";
import { makePlan } from "./testing/fixtures.ts";

describe("usage", () => {
  it("adds a run's report, and nothing when there is none", () => {
    expect(addUsage({ tokens: 10, cost: 0.1 }, { tokens: 5, cost: 0.2 })).toEqual({ tokens: 15, cost: 0.1 + 0.2 });
    expect(addUsage({ tokens: 10, cost: 0.1 }, undefined)).toEqual({ tokens: 10, cost: 0.1 });
  });

  it("ignores negative and non-finite figures, so usage never decreases", () => {
    expect(addUsage({ tokens: 10, cost: 1 }, { tokens: -5, cost: Number.NaN })).toEqual({ tokens: 10, cost: 1 });
    expect(addUsage({ tokens: 10, cost: 1 }, { tokens: Number.POSITIVE_INFINITY, cost: -1 })).toEqual({ tokens: 10, cost: 1 });
  });

  it("sums the plan over every step", () => {
    const plan = makePlan({
      steps: [
        { index: 1, usage: { tokens: 100, cost: 0.5 } },
        { index: 2, usage: { tokens: 20, cost: 0.25 } },
      ],
    });
    expect(planUsage(plan)).toEqual({ tokens: 120, cost: 0.75 });
  });
});

describe("budgetRefusal", () => {
  const unlimited = { maxTokens: null, maxCost: null };

  it("is null under every limit, and without limits", () => {
    const plan = makePlan({
      budget: { maxTokens: 1000, maxCost: 1 },
      steps: [{ index: 1, usage: { tokens: 999, cost: 0.99 }, budget: { maxTokens: 1000, maxCost: 1 } }],
    });
    expect(budgetRefusal(plan, plan.steps[0])).toBeNull();
    const free = makePlan({ steps: [{ index: 1, usage: { tokens: 1e9, cost: 1e9 } }] });
    expect(budgetRefusal(free, free.steps[0])).toBeNull();
  });

  it("names the plan limit reached (at the limit, not only past it), plan before step", () => {
    const plan = makePlan({
      budget: { maxTokens: 1000, maxCost: null },
      steps: [{ index: 1, usage: { tokens: 1000, cost: 0 }, budget: { maxTokens: 10, maxCost: null } }],
    });
    expect(budgetRefusal(plan, plan.steps[0])).toBe("plan max_tokens reached (1000 used of 1000)");
    const costly = makePlan({ budget: { maxTokens: null, maxCost: 0.3 }, steps: [{ index: 1, usage: { tokens: 0, cost: 0.1 + 0.2 } }] });
    expect(budgetRefusal(costly, costly.steps[0])).toBe("plan max_cost reached (0.3 used of 0.3)");
  });

  it("names the step's own limit, counting only that step's usage", () => {
    const plan = makePlan({
      budget: unlimited,
      steps: [
        { index: 1, usage: { tokens: 5000, cost: 0 } },
        { index: 2, usage: { tokens: 10, cost: 0.75 }, budget: { maxTokens: 100, maxCost: 0.5 } },
      ],
    });
    expect(budgetRefusal(plan, plan.steps[0])).toBeNull();
    expect(budgetRefusal(plan, plan.steps[1])).toBe("step max_cost reached (0.75 used of 0.5)");
  });
});
