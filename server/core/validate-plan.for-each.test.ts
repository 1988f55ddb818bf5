/**
 * Validation of for_each steps: the shape of `for_each`, its relation to wait_for
 * and quorum, and where `{{item}}` / `{{item_index}}` may appear.
 */
import { describe, expect, it } from "vitest";
import { PlanValidationError, type PlanIssue } from "./errors.ts";
import { makePlan } from "./testing/fixtures.ts";
import { validateAppendedSteps, validatePlan, type PlanLimits } from "./validate-plan.ts";

const limits: PlanLimits = { maxSteps: 5, maxInputChars: 200, defaultMaxParallel: 2, defaultMaxRetries: 3 };
const assignees = new Set(["writer", "researcher"]);

function rawStep(index: number, extra: Record<string, unknown> = {}) {
  return { index, title: `step ${index}`, assignee: "writer", input: `part ${index}`, ...extra };
}

function issuesOf(steps: unknown[]): PlanIssue[] {
  try {
    validatePlan({ raw: { title: "x", steps }, assignees, limits });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanValidationError);
    return (error as PlanValidationError).issues;
  }
  throw new Error("expected the plan to be rejected");
}

describe("validatePlan: for_each", () => {
  it("maps for_each to ForEach, max_parallel defaulting to null", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [
          rawStep(1),
          rawStep(2, {
            input: "read {{item}} ({{item_index}}) for {{request}}",
            for_each: { from: 1, field: "output_lines", max_parallel: 2 },
          }),
          rawStep(3, { wait_for: [1, 2], input: "{{step_2.output_summary}}", for_each: { from: 1, field: "output_files" } }),
        ],
      },
      assignees,
      limits,
    });
    expect(spec.steps.map((step) => step.forEach)).toEqual([
      null,
      { from: 1, field: "output_lines", maxParallel: 2 },
      { from: 1, field: "output_files", maxParallel: null },
    ]);
  });

  it("accepts the default wait_for ([index-1]) and an optional source", () => {
    const spec = validatePlan({
      raw: {
        title: "x",
        steps: [
          rawStep(1),
          rawStep(2, { input: "{{item}}", for_each: { from: 1, field: "output_lines" } }),
          rawStep(3, { wait_for: [{ step: 2, optional: true }], input: "{{item}}", for_each: { from: 2, field: "output_lines" } }),
        ],
      },
      assignees,
      limits,
    });
    expect(spec.steps[1]).toMatchObject({ waitFor: [1], forEach: { from: 1 } });
    expect(spec.steps[2]).toMatchObject({ optionalWaitFor: [2], forEach: { from: 2 } });
  });

  it("rejects a source that is not in wait_for, naming the step and for_each", () => {
    const issues = issuesOf([
      rawStep(1),
      rawStep(2),
      rawStep(3, { wait_for: [2], input: "{{item}}", for_each: { from: 1, field: "output_lines" } }),
    ]);
    expect(issues).toEqual([
      { stepIndex: 3, field: "for_each", message: expect.stringContaining('"from" names step 1, which is not in wait_for') },
    ]);
    // a step cannot map over itself or a later step either (wait_for never names those)
    expect(issuesOf([rawStep(1), rawStep(2, { input: "{{item}}", for_each: { from: 2, field: "output_lines" } })])).toContainEqual(
      expect.objectContaining({ stepIndex: 2, field: "for_each" }),
    );
    expect(issuesOf([rawStep(1, { input: "{{item}}", for_each: { from: 1, field: "output_files" } })])).toContainEqual(
      expect.objectContaining({ stepIndex: 1, field: "for_each" }),
    );
  });

  it("rejects for_each with a quorum", () => {
    const issues = issuesOf([
      rawStep(1),
      rawStep(2, { wait_for: [] }),
      rawStep(3, { wait_for: [1, 2], quorum: 1, input: "{{item}}", for_each: { from: 1, field: "output_lines" } }),
    ]);
    expect(issues).toEqual([{ stepIndex: 3, field: "for_each", message: expect.stringContaining("quorum") }]);
  });

  it("rejects a malformed for_each: unknown field, bad max_parallel, unknown key", () => {
    const issues = issuesOf([
      rawStep(1),
      rawStep(2, { input: "{{item}}", for_each: { from: 1, field: "output_summary" } }),
      rawStep(3, { wait_for: [1], input: "{{item}}", for_each: { from: 1, field: "output_lines", max_parallel: 0 } }),
      rawStep(4, { wait_for: [1], input: "{{item}}", for_each: { from: 1, field: "output_lines", maxParallel: 2 } }),
    ]);
    expect(issues).toEqual([
      expect.objectContaining({ stepIndex: 2, field: "for_each" }),
      expect.objectContaining({ stepIndex: 3, field: "for_each" }),
      expect.objectContaining({ stepIndex: 4, field: "for_each", message: expect.stringContaining("unknown field") }),
    ]);
  });

  it("{{item}} and {{item_index}} are valid only in a for_each step", () => {
    const issues = issuesOf([
      rawStep(1, { input: "do {{item}} and {{ item }} #{{item_index}}" }),
      rawStep(2, { input: "{{item}}", for_each: { from: 1, field: "output_lines" } }),
    ]);
    expect(issues).toEqual([
      { stepIndex: 1, field: "input", message: "{{item}} is only available in a for_each step" },
      { stepIndex: 1, field: "input", message: "{{item_index}} is only available in a for_each step" },
    ]);
  });

  it("lists the item variables among the known ones in a for_each step's unknown-variable message", () => {
    const issues = issuesOf([rawStep(1), rawStep(2, { input: "{{items}}", for_each: { from: 1, field: "output_lines" } })]);
    expect(issues).toEqual([
      expect.objectContaining({ stepIndex: 2, field: "input", message: expect.stringContaining("{{item}}, {{item_index}}") }),
    ]);
  });
});

describe("validateAppendedSteps: for_each", () => {
  const expanded = makePlan({
    steps: [
      { index: 1, status: "done" },
      {
        index: 2,
        status: "in_progress",
        forEach: { from: 1, field: "output_lines", maxParallel: null },
        expansion: { children: [3, 4, 5, 6, 7], items: ["a", "b", "c", "d", "e"] },
      },
      ...[3, 4, 5, 6, 7].map((index) => ({ index, waitFor: [1], parentIndex: 2 })),
    ],
  });

  it("accepts an appended for_each step over an existing step, after the children's indexes", () => {
    const [spec] = validateAppendedSteps({
      existing: expanded,
      raw: [rawStep(8, { wait_for: [2], input: "polish {{item}}", for_each: { from: 2, field: "output_lines" } })],
      assignees,
      limits,
    });
    expect(spec).toMatchObject({ index: 8, forEach: { from: 2, field: "output_lines", maxParallel: null } });
  });

  it("does not count for_each children against the step limit", () => {
    // 2 proposed steps + 2 new = 4 of 5, although the plan already holds 7 rows
    expect(() =>
      validateAppendedSteps({ existing: expanded, raw: [rawStep(8, { wait_for: [2] }), rawStep(9)], assignees, limits }),
    ).not.toThrow();
    expect(() =>
      validateAppendedSteps({
        existing: expanded,
        raw: [rawStep(8, { wait_for: [2] }), rawStep(9), rawStep(10), rawStep(11)],
        assignees,
        limits,
      }),
    ).toThrow(/limit is 5/);
  });

  it("rejects {{item}} in an appended step without for_each", () => {
    try {
      validateAppendedSteps({ existing: expanded, raw: [rawStep(8, { wait_for: [2], input: "{{item}}" })], assignees, limits });
      throw new Error("expected a rejection");
    } catch (error) {
      expect((error as PlanValidationError).issues).toEqual([expect.objectContaining({ stepIndex: 8, field: "input" })]);
    }
  });
});
