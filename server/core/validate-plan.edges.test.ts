/**
 * Validation of the optional plan features: optional wait_for entries, quorum and
 * budgets. The rules shared with plain wait_for live in validate-plan.test.ts.
 */
import { describe, expect, it } from "vitest";
import { PlanValidationError, type PlanIssue } from "./errors.ts";
import { createPlanState } from "./plan-state.ts";
import { makePlan } from "./testing/fixtures.ts";
import { validateAppendedSteps, validatePlan, type PlanLimits } from "./validate-plan.ts";

const limits: PlanLimits = { maxSteps: 6, maxInputChars: 100, defaultMaxParallel: 2, defaultMaxRetries: 3 };
const assignees = new Set(["writer"]);

function rawStep(index: number, extra: Record<string, unknown> = {}) {
  return { index, title: `step ${index}`, assignee: "writer", input: `part ${index}`, ...extra };
}

function issuesOf(raw: unknown): PlanIssue[] {
  try {
    validatePlan({ raw, assignees, limits });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanValidationError);
    return (error as PlanValidationError).issues;
  }
  throw new Error("expected the plan to be rejected");
}

describe("validatePlan: optional dependencies", () => {
  it("keeps every dependency in waitFor and the optional ones in optionalWaitFor", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [rawStep(1), rawStep(2, { wait_for: [] }), rawStep(3, { wait_for: [1, { step: 2, optional: true }] })],
      },
      assignees,
      limits,
    });
    expect(spec.steps[2]).toMatchObject({ waitFor: [1, 2], optionalWaitFor: [2], quorum: null });
    expect(spec.steps[0]).toMatchObject({ waitFor: [], optionalWaitFor: [] });
  });

  it("treats the object form without optional, or with optional false, as required", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [rawStep(1), rawStep(2, { wait_for: [] }), rawStep(3, { wait_for: [{ step: 1 }, { step: 2, optional: false }] })],
      },
      assignees,
      limits,
    });
    expect(spec.steps[2]).toMatchObject({ waitFor: [1, 2], optionalWaitFor: [] });
  });

  it("lets a template name an optional dependency (it is upstream)", () => {
    const spec = validatePlan({
      raw: { title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [{ step: 1, optional: true }], input: "{{step_1.output_summary}}" })] },
      assignees,
      limits,
    });
    expect(spec.steps[1].optionalWaitFor).toEqual([1]);
  });

  it("checks optional entries like required ones: missing, later, self, duplicate", () => {
    const issues = issuesOf({
      title: "x",
      steps: [
        rawStep(1, { wait_for: [{ step: 2, optional: true }] }),
        rawStep(2, { wait_for: [{ step: 2, optional: true }] }),
        rawStep(3, { wait_for: [{ step: 9, optional: true }] }),
        rawStep(4, { wait_for: [1, { step: 1, optional: true }] }),
      ],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stepIndex: 1, field: "wait_for", message: expect.stringContaining("comes later") }),
        { stepIndex: 2, field: "wait_for", message: "names the step itself" },
        { stepIndex: 3, field: "wait_for", message: "names step 9, which does not exist" },
        { stepIndex: 4, field: "wait_for", message: "names step 1 more than once" },
      ]),
    );
  });

  it("explains a malformed entry", () => {
    for (const entry of [{ stpe: 1 }, { step: 1, optional: "yes" }, "1"]) {
      expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [entry] })] })).toEqual([
        { stepIndex: 2, field: "wait_for", message: expect.stringContaining('{ "step": N, "optional": true }') },
      ]);
    }
    // an entry of the right form with a bad index gets the precise complaint
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [{ step: 0 }] })] })).toEqual([
      { stepIndex: 2, field: "wait_for", message: expect.stringContaining(">=1") },
    ]);
  });
});

describe("validatePlan: quorum", () => {
  it("accepts 1 ≤ quorum ≤ number of wait_for entries", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [
          rawStep(1),
          rawStep(2, { wait_for: [] }),
          rawStep(3, { wait_for: [] }),
          rawStep(4, { wait_for: [1, 2, 3], quorum: 2 }),
          rawStep(5, { quorum: 1 }),
        ],
      },
      assignees,
      limits,
    });
    expect(spec.steps[3]).toMatchObject({ waitFor: [1, 2, 3], quorum: 2 });
    // the default wait_for (the previous step) counts as one entry
    expect(spec.steps[4]).toMatchObject({ waitFor: [4], quorum: 1 });
  });

  it("rejects a quorum above the number of entries, or on a step without dependencies", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [1], quorum: 2 })] })).toEqual([
      { stepIndex: 2, field: "quorum", message: expect.stringContaining("is 2, but the step waits for 1 step") },
    ]);
    expect(issuesOf({ title: "x", steps: [rawStep(1, { quorum: 1 })] })).toEqual([
      { stepIndex: 1, field: "quorum", message: expect.stringContaining("waits for 0 steps") },
    ]);
  });

  it("counts a repeated entry once", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [1, 1], quorum: 2 })] });
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 2, field: "quorum" }));
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 2, field: "wait_for" }));
  });

  it("rejects a quorum below 1 or not an integer by shape", () => {
    for (const quorum of [0, -1, 1.5, "2"]) {
      expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { quorum })] })).toEqual([
        expect.objectContaining({ stepIndex: 2, field: "quorum" }),
      ]);
    }
  });
});

describe("validatePlan: budgets", () => {
  it("defaults to no limits for the plan and every step", () => {
    const spec = validatePlan({ raw: { title: "x", steps: [rawStep(1)] }, assignees, limits });
    expect(spec.budget).toEqual({ maxTokens: null, maxCost: null });
    expect(spec.steps[0].budget).toEqual({ maxTokens: null, maxCost: null });
  });

  it("reads plan and step budgets, either limit alone", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        budget: { max_tokens: 5000 },
        steps: [rawStep(1, { budget: { max_cost: 0.5 } }), rawStep(2, { budget: { max_tokens: 10, max_cost: 2 } })],
      },
      assignees,
      limits,
    });
    expect(spec.budget).toEqual({ maxTokens: 5000, maxCost: null });
    expect(spec.steps.map((step) => step.budget)).toEqual([
      { maxTokens: null, maxCost: 0.5 },
      { maxTokens: 10, maxCost: 2 },
    ]);
  });

  it("rejects non-positive limits, fractional tokens and unknown keys, naming the field", () => {
    const issues = issuesOf({
      title: "x",
      budget: { max_tokens: 0, max_cost: -1, tokens: 5 },
      steps: [rawStep(1, { budget: { max_tokens: 1.5, max_cost: 0, cost: 1 } })],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stepIndex: null, field: "budget.max_tokens" }),
        expect.objectContaining({ stepIndex: null, field: "budget.max_cost" }),
        expect.objectContaining({ stepIndex: null, field: "budget", message: expect.stringContaining("tokens") }),
        expect.objectContaining({ stepIndex: 1, field: "budget", message: expect.stringContaining("expected int") }),
        expect.objectContaining({ stepIndex: 1, field: "budget", message: expect.stringContaining("cost") }),
      ]),
    );
    expect(issues).toHaveLength(6);
  });

  it("carries the plan budget into the plan state, with zero usage everywhere", () => {
    const spec = validatePlan({ raw: { title: "x", budget: { max_cost: 3 }, steps: [rawStep(1)] }, assignees, limits });
    const state = createPlanState({ id: "p", request: "r", spec });
    expect(state.budget).toEqual({ maxTokens: null, maxCost: 3 });
    expect(state.steps[0]).toMatchObject({
      usage: { tokens: 0, cost: 0 },
      decisionCount: 0,
      renderedInput: null,
      optionalWaitFor: [],
      quorum: null,
    });
  });
});

describe("validateAppendedSteps: the new fields", () => {
  const existing = makePlan({ steps: [{ index: 1 }, { index: 2, waitFor: [] }] });

  it("accepts optional entries, quorum and budget on appended steps", () => {
    const steps = validateAppendedSteps({
      existing,
      raw: [rawStep(3, { wait_for: [1, { step: 2, optional: true }], quorum: 1, budget: { max_tokens: 100 } })],
      assignees,
      limits,
    });
    expect(steps[0]).toMatchObject({ waitFor: [1, 2], optionalWaitFor: [2], quorum: 1, budget: { maxTokens: 100, maxCost: null } });
  });

  it("rejects a quorum out of range and an optional entry naming a missing step", () => {
    try {
      validateAppendedSteps({ existing, raw: [rawStep(3, { wait_for: [{ step: 7, optional: true }], quorum: 2 })], assignees, limits });
      expect.unreachable();
    } catch (error) {
      expect((error as PlanValidationError).issues).toEqual([
        { stepIndex: 3, field: "wait_for", message: "names step 7, which does not exist" },
        expect.objectContaining({ stepIndex: 3, field: "quorum" }),
      ]);
    }
  });
});
