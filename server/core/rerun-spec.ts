/**
 * A re-run of an ended plan: the plan as it stood when it ended, written back as the
 * raw plan JSON every new plan is validated from (validate-plan.ts), so a re-run is
 * checked exactly like the commander's own plan (the roster may have changed since).
 * Its top-level steps are the spec: the ones it started with, changes the commander
 * made on a retry, and steps appended later; for_each items are made again when
 * their step runs. Items took indexes between appended steps, so the steps are
 * renumbered 1..n in order, and every reference (wait_for, for_each.from, the
 * `{{step_N.…}}` of inputs) with them. A reference to an item (a step appended by the
 * commander may wait for one) becomes one to its for_each step, which the re-run has
 * and which ends once all its items have: the same work, waited for as a whole.
 */
import type { RawStep } from "./plan-schema.ts";
import type { Budget, PlanState, StepState } from "./types.ts";

interface RawRerunPlan {
  title: string;
  max_parallel: number;
  budget?: { max_tokens?: number; max_cost?: number };
  steps: RawStep[];
}

function rawBudget(budget: Budget): RawRerunPlan["budget"] {
  const raw: NonNullable<RawRerunPlan["budget"]> = {};
  if (budget.maxTokens !== null) raw.max_tokens = budget.maxTokens;
  if (budget.maxCost !== null) raw.max_cost = budget.maxCost;
  return Object.keys(raw).length === 0 ? undefined : raw;
}

const STEP_REFERENCE = /(\{\{\s*step_)(\d+)(\.)/g;

export function rerunRawPlan(plan: Pick<PlanState, "maxParallel" | "budget" | "steps"> & { title: string }): RawRerunPlan {
  const topLevel = [...plan.steps].filter((step) => step.parentIndex === null).sort((a, b) => a.index - b.index);
  const renumbered = new Map(topLevel.map((step, i) => [step.index, i + 1] as const));
  const parentOf = new Map(plan.steps.map((step) => [step.index, step.parentIndex] as const));
  const to = (index: number): number => {
    const mapped = renumbered.get(parentOf.get(index) ?? index);
    if (mapped === undefined) throw new Error(`re-run: a step refers to step ${index}, which is not a step of the plan`);
    return mapped;
  };
  const input = (step: StepState) =>
    step.input.replace(STEP_REFERENCE, (whole: string, open: string, index: string, dot: string) =>
      parentOf.has(Number(index)) ? `${open}${to(Number(index))}${dot}` : whole,
    );
  /** wait_for with items turned into their for_each step: once each, required if any of them was */
  const waitFor = (step: StepState): (number | { step: number; optional: true })[] => {
    const required = new Map<number, boolean>();
    for (const index of step.waitFor) {
      const mapped = to(index);
      required.set(mapped, (required.get(mapped) ?? false) || !step.optionalWaitFor.includes(index));
    }
    return [...required].map(([index, isRequired]) => (isRequired ? index : { step: index, optional: true as const }));
  };
  const budget = rawBudget(plan.budget);
  return {
    title: plan.title,
    max_parallel: plan.maxParallel,
    ...(budget ? { budget } : {}),
    steps: topLevel.map((step): RawStep => {
      const stepBudget = rawBudget(step.budget);
      const waits = waitFor(step);
      return {
        index: to(step.index),
        title: step.title,
        assignee: step.assignee,
        input: input(step),
        // always written: a missing wait_for means "the previous step"
        wait_for: waits,
        // items merged into their step leave fewer dependencies to count
        ...(step.quorum !== null ? { quorum: Math.min(step.quorum, waits.length) } : {}),
        on_failure: step.onFailure,
        max_retries: step.maxRetries,
        ...(stepBudget ? { budget: stepBudget } : {}),
        // the commander's judgement of the step's effort carries over (effort-escalation)
        ...(step.effort ? { effort: step.effort } : {}),
        ...(step.forEach
          ? {
              for_each: {
                from: to(step.forEach.from),
                field: step.forEach.field,
                ...(step.forEach.maxParallel !== null ? { max_parallel: step.forEach.maxParallel } : {}),
              },
            }
          : {}),
      };
    }),
  };
}
