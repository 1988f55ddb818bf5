/**
 * Token and cost budgets. The scheduler, not the model, refuses to start a step
 * once the plan's or the step's budget is used up, and asks the commander instead.
 */
import type { Budget, PlanState, RunUsage, StepState } from "./types.ts";

/**
 * Commander decisions a step may receive before a further budget refusal aborts the
 * plan: a commander that keeps answering "retry" to an exhausted budget would
 * otherwise be asked forever.
 */
export const BUDGET_DECISION_LIMIT = 3;

/**
 * `total` plus what one run reported. Negative or non-finite figures (a runtime
 * bug) count as zero, so usage never decreases and never becomes NaN.
 */
export function addUsage(total: RunUsage, reported: RunUsage | undefined): RunUsage {
  if (!reported) return total;
  const clean = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);
  return { tokens: total.tokens + clean(reported.tokens), cost: total.cost + clean(reported.cost) };
}

/** What every step of the plan consumed together. */
export function planUsage(plan: Pick<PlanState, "steps">): RunUsage {
  let tokens = 0;
  let cost = 0;
  for (const step of plan.steps) {
    tokens += step.usage.tokens;
    cost += step.usage.cost;
  }
  return { tokens, cost };
}

// costs are sums of floats: print them short so "0.30000000000000004" does not reach a person
function figure(value: number): string {
  return String(Number(value.toFixed(6)));
}

function exhausted(scope: string, usage: RunUsage, budget: Budget): string | null {
  if (budget.maxTokens !== null && usage.tokens >= budget.maxTokens) {
    return `${scope} max_tokens reached (${figure(usage.tokens)} used of ${figure(budget.maxTokens)})`;
  }
  if (budget.maxCost !== null && usage.cost >= budget.maxCost) {
    return `${scope} max_cost reached (${figure(usage.cost)} used of ${figure(budget.maxCost)})`;
  }
  return null;
}

/**
 * Why `step` must not start now, or null if it may: the plan's total usage has
 * reached a plan limit, or the step's own usage has reached one of its limits. The
 * text names the limit and the figures, e.g. "plan max_tokens reached (1200 used of 1000)".
 */
export function budgetRefusal(plan: Pick<PlanState, "steps" | "budget">, step: Pick<StepState, "usage" | "budget">): string | null {
  return exhausted("plan", planUsage(plan), plan.budget) ?? exhausted("step", step.usage, step.budget);
}
