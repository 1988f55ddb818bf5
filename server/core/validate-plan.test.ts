import { describe, expect, it } from "vitest";
import { PlanValidationError, type PlanIssue } from "./errors.ts";
import { validateAppendedSteps, validatePlan, type PlanLimits } from "./validate-plan.ts";
import { makePlan } from "./testing/fixtures.ts";

const limits: PlanLimits = { maxSteps: 5, maxInputChars: 100, defaultMaxParallel: 2, defaultMaxRetries: 3 };
const assignees = new Set(["writer", "researcher"]);

function rawStep(index: number, extra: Record<string, unknown> = {}) {
  return { index, title: `step ${index}`, assignee: "writer", input: `part ${index}`, ...extra };
}

function issuesOf(raw: unknown): PlanIssue[] {
  try {
    validatePlan({ raw, assignees, limits });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanValidationError);
    expect((error as PlanValidationError).code).toBe("plan_invalid");
    return (error as PlanValidationError).issues;
  }
  throw new Error("expected the plan to be rejected");
}

function appendIssuesOf(raw: unknown): PlanIssue[] {
  const existing = makePlan({ steps: [{ index: 1 }, { index: 2, waitFor: [] }] });
  try {
    validateAppendedSteps({ existing, raw, assignees, limits });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanValidationError);
    return (error as PlanValidationError).issues;
  }
  throw new Error("expected the steps to be rejected");
}

describe("validatePlan", () => {
  it("keeps a step's effort, leaves it unset when not given, and names a bad one", () => {
    const spec = validatePlan({
      raw: { title: "Effort", steps: [rawStep(1, { effort: "deep" }), rawStep(2, { effort: "light" }), rawStep(3)] },
      assignees,
      limits,
    });
    expect(spec.steps.map((step) => step.effort)).toEqual(["deep", "light", undefined]);
    const issues = issuesOf({ title: "Effort", steps: [rawStep(1, { effort: "extreme" })] });
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 1, field: "effort" }));
  });

  it("applies defaults", () => {
    const spec = validatePlan({
      raw: { title: "Report", steps: [rawStep(1), rawStep(2), rawStep(3, { wait_for: [1], on_failure: "continue", max_retries: 0 })] },
      assignees,
      limits,
    });
    const defaults = { optionalWaitFor: [], quorum: null, budget: { maxTokens: null, maxCost: null }, forEach: null };
    expect(spec).toEqual({
      title: "Report",
      maxParallel: 2,
      budget: { maxTokens: null, maxCost: null },
      steps: [
        {
          index: 1,
          title: "step 1",
          assignee: "writer",
          input: "part 1",
          waitFor: [],
          onFailure: "ask_commander",
          maxRetries: 3,
          ...defaults,
        },
        {
          index: 2,
          title: "step 2",
          assignee: "writer",
          input: "part 2",
          waitFor: [1],
          onFailure: "ask_commander",
          maxRetries: 3,
          ...defaults,
        },
        { index: 3, title: "step 3", assignee: "writer", input: "part 3", waitFor: [1], onFailure: "continue", maxRetries: 0, ...defaults },
      ],
    });
  });

  it("accepts user, commander, a mention-style handle and max_parallel", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        max_parallel: 4,
        steps: [rawStep(1, { assignee: "user" }), rawStep(2, { assignee: "commander" }), rawStep(3, { assignee: "@researcher" })],
      },
      assignees,
      limits,
    });
    expect(spec.maxParallel).toBe(4);
    expect(spec.steps.map((step) => step.assignee)).toEqual(["user", "commander", "researcher"]);
  });

  it("maps zod shape errors to the step's declared index and field", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: ["one"], on_failure: "explode" })] });
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 2, field: "wait_for" }));
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 2, field: "on_failure" }));
  });

  it("reports a shape error on a step without a usable index by position", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1), { title: "t", assignee: "writer", input: "i" }] });
    expect(issues).toEqual([expect.objectContaining({ stepIndex: null, field: "index" })]);
    expect(issues[0].message).toContain("position 2");
  });

  it("rejects plan-level shape errors and unknown fields", () => {
    const issues = issuesOf({ title: "", max_parallel: 0, steps: [rawStep(1, { waitFor: [1] })] });
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: null, field: "title" }));
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: null, field: "max_parallel" }));
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 1, field: "waitFor" }));
  });

  it("rejects max_retries above the hard cap", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1, { max_retries: 11 })] })).toEqual([
      expect.objectContaining({ stepIndex: 1, field: "max_retries" }),
    ]);
  });

  it("rejects a non-object", () => {
    expect(issuesOf("make me a plan").length).toBeGreaterThan(0);
  });

  it("rejects an empty plan", () => {
    expect(issuesOf({ title: "x", steps: [] })).toEqual([{ stepIndex: null, field: "steps", message: "the plan has no steps" }]);
  });

  it("rejects more steps than the limit", () => {
    const issues = issuesOf({ title: "x", steps: [1, 2, 3, 4, 5, 6].map((index) => rawStep(index)) });
    expect(issues).toEqual([expect.objectContaining({ stepIndex: null, field: "steps" })]);
    expect(issues[0].message).toContain("6 steps; the limit is 5");
  });

  it("rejects a repeated index", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1), rawStep(2), rawStep(2)] });
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 2, field: "index", message: expect.stringContaining("repeats") }));
  });

  it("rejects indexes out of order or with gaps", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(2), rawStep(1)] })).toContainEqual(
      expect.objectContaining({ stepIndex: 2, field: "index", message: expect.stringContaining("expected index 1") }),
    );
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(3)] })).toContainEqual(
      expect.objectContaining({ stepIndex: 3, field: "index", message: expect.stringContaining("expected index 2") }),
    );
  });

  it("rejects wait_for naming a missing step", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2), rawStep(3, { wait_for: [7] })] })).toEqual([
      { stepIndex: 3, field: "wait_for", message: "names step 7, which does not exist" },
    ]);
  });

  it("rejects wait_for naming the step itself", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [2] })] })).toEqual([
      expect.objectContaining({ stepIndex: 2, field: "wait_for", message: "names the step itself" }),
    ]);
  });

  it("rejects wait_for naming a later step, and reports the resulting cycle", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1, { wait_for: [2] }), rawStep(2)] });
    expect(issues).toContainEqual(
      expect.objectContaining({ stepIndex: 1, field: "wait_for", message: expect.stringContaining("comes later") }),
    );
    expect(issues).toContainEqual(expect.objectContaining({ stepIndex: 1, field: "wait_for", message: expect.stringContaining("cycle") }));
  });

  it("rejects duplicate wait_for entries", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { wait_for: [1, 1] })] })).toEqual([
      expect.objectContaining({ stepIndex: 2, field: "wait_for", message: "names step 1 more than once" }),
    ]);
  });

  it("rejects an assignee who is not in the conversation", () => {
    const issues = issuesOf({ title: "x", steps: [rawStep(1), rawStep(2, { assignee: "stranger" })] });
    expect(issues).toEqual([expect.objectContaining({ stepIndex: 2, field: "assignee" })]);
    expect(issues[0].message).toContain('"stranger" is not in this conversation');
  });

  it("names each assignee once, also when the roster holds the commander's handle", () => {
    let issues: PlanIssue[] = [];
    try {
      validatePlan({
        raw: { title: "x", steps: [rawStep(1, { assignee: "stranger" })] },
        assignees: new Set(["commander", "writer"]),
        limits,
      });
    } catch (error) {
      issues = (error as PlanValidationError).issues;
    }
    expect(issues[0].message).toBe('"stranger" is not in this conversation (available: commander, writer, user)');
  });

  it("rejects an input longer than the limit", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1, { input: "a".repeat(101) })] })).toEqual([
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringContaining("101 characters") }),
    ]);
  });

  it("rejects an unknown template variable", () => {
    expect(issuesOf({ title: "x", steps: [rawStep(1, { input: "use {{ requst }}" })] })).toEqual([
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringContaining("{{requst}}") }),
    ]);
  });

  it("rejects a template naming a step that is not upstream", () => {
    const issues = issuesOf({
      title: "x",
      steps: [rawStep(1), rawStep(2, { wait_for: [] }), rawStep(3, { wait_for: [2], input: "{{step_1.output_summary}}" })],
    });
    expect(issues).toEqual([expect.objectContaining({ stepIndex: 3, field: "input", message: expect.stringContaining("not upstream") })]);
  });

  it("accepts a template naming a transitive upstream step and the request", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [rawStep(1), rawStep(2), rawStep(3, { input: "{{request}} {{step_1.output_files}} {{ step_2.output_summary }}" })],
      },
      assignees,
      limits,
    });
    expect(spec.steps).toHaveLength(3);
  });

  it("rejects a template naming a missing step, a later step or the step itself", () => {
    const issues = issuesOf({
      title: "x",
      steps: [rawStep(1, { input: "{{step_9.output_summary}} {{step_1.output_files}} {{step_2.output_summary}}" }), rawStep(2)],
    });
    expect(issues).toEqual([
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringContaining("does not exist") }),
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringContaining("own output") }),
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringContaining("not upstream") }),
    ]);
  });

  it("collects every issue, and the message lists them", () => {
    try {
      validatePlan({
        raw: { title: "x", steps: [rawStep(1, { assignee: "ghost" }), rawStep(2), rawStep(3, { wait_for: [7] })] },
        assignees,
        limits,
      });
      expect.unreachable();
    } catch (error) {
      const planError = error as PlanValidationError;
      expect(planError.issues).toHaveLength(2);
      expect(planError.message).toContain("step 3, wait_for: names step 7, which does not exist");
      expect(planError.message).toContain("step 1, assignee:");
    }
  });
});

describe("validateAppendedSteps", () => {
  const existing = makePlan({ steps: [{ index: 1 }, { index: 2 }] });

  it("continues indexes and defaults wait_for to the previous step", () => {
    const steps = validateAppendedSteps({
      existing,
      raw: [rawStep(3, { input: "{{step_2.output_summary}}" }), rawStep(4, { wait_for: [1, 3], input: "{{step_1.output_files}}" })],
      assignees,
      limits,
    });
    expect(steps.map((step) => [step.index, step.waitFor])).toEqual([
      [3, [2]],
      [4, [1, 3]],
    ]);
  });

  it("rejects indexes that do not continue from the current maximum", () => {
    expect(appendIssuesOf([rawStep(2)])).toContainEqual(
      expect.objectContaining({ stepIndex: 2, field: "index", message: expect.stringContaining("repeats") }),
    );
    expect(appendIssuesOf([rawStep(4)])).toContainEqual(
      expect.objectContaining({ stepIndex: 4, field: "index", message: expect.stringContaining("expected index 3") }),
    );
  });

  it("rejects wait_for naming a missing or later step", () => {
    expect(appendIssuesOf([rawStep(3, { wait_for: [4] }), rawStep(4), rawStep(5, { wait_for: [9] })])).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stepIndex: 3, field: "wait_for", message: expect.stringContaining("comes later") }),
        expect.objectContaining({ stepIndex: 5, field: "wait_for", message: expect.stringContaining("does not exist") }),
      ]),
    );
  });

  it("rejects an empty list, too many steps, and shape errors by step", () => {
    expect(appendIssuesOf([])).toEqual([expect.objectContaining({ stepIndex: null, field: "steps" })]);
    expect(appendIssuesOf([rawStep(3), rawStep(4), rawStep(5), rawStep(6)])).toEqual([
      expect.objectContaining({ stepIndex: null, field: "steps", message: expect.stringContaining("limit is 5") }),
    ]);
    expect(appendIssuesOf([rawStep(3, { assignee: 42 })])).toEqual([expect.objectContaining({ stepIndex: 3, field: "assignee" })]);
  });

  it("rejects a template naming an existing step that is not upstream", () => {
    expect(appendIssuesOf([rawStep(3, { wait_for: [2], input: "{{step_1.output_summary}}" })])).toEqual([
      expect.objectContaining({ stepIndex: 3, field: "input", message: expect.stringContaining("not upstream") }),
    ]);
  });

  it("detects a cycle among stored steps explicitly", () => {
    const corrupt = makePlan({
      steps: [
        { index: 1, waitFor: [2] },
        { index: 2, waitFor: [1] },
      ],
    });
    try {
      validateAppendedSteps({ existing: corrupt, raw: [rawStep(3)], assignees, limits });
      expect.unreachable();
    } catch (error) {
      expect((error as PlanValidationError).issues).toEqual([
        expect.objectContaining({ stepIndex: 1, field: "wait_for", message: expect.stringContaining("cycle: 1 waits for 2 waits for 1") }),
      ]);
    }
  });
});
