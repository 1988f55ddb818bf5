import { describe, expect, it } from "vitest";
import { rerunRawPlan } from "./rerun-spec.ts";
import { done, makePlan, makeStep } from "./testing/fixtures.ts";
import { validatePlan, type PlanLimits } from "./validate-plan.ts";

const limits: PlanLimits = { maxSteps: 20, maxInputChars: 1_000, defaultMaxParallel: 3, defaultMaxRetries: 3 };

describe("rerunRawPlan", () => {
  it("writes the ended plan back as a raw plan that validates to the same steps", () => {
    const plan = makePlan({
      status: "failed",
      maxParallel: 2,
      budget: { maxTokens: 500, maxCost: null },
      steps: [
        done(1, { waitFor: [], assignee: "researcher", input: "look {{request}}" }),
        { index: 2, waitFor: [1], optionalWaitFor: [1], onFailure: "continue", maxRetries: 1, status: "failed", effort: "deep" },
        { index: 3, waitFor: [1, 2], quorum: 1, input: "use {{step_1.output_summary}}", budget: { maxTokens: 50, maxCost: 0.5 } },
      ],
    });
    const raw = rerunRawPlan({ ...plan, title: "Again" });
    const spec = validatePlan({ raw, assignees: new Set(["writer", "researcher"]), limits });
    expect(spec).toMatchObject({ title: "Again", maxParallel: 2, budget: { maxTokens: 500, maxCost: null } });
    expect(spec.steps.map((step) => [step.index, step.waitFor, step.optionalWaitFor, step.quorum, step.onFailure])).toEqual([
      [1, [], [], null, "ask_commander"],
      [2, [1], [1], null, "continue"],
      [3, [1, 2], [], 1, "ask_commander"],
    ]);
    expect(spec.steps[2]).toMatchObject({ input: "use {{step_1.output_summary}}", budget: { maxTokens: 50, maxCost: 0.5 } });
    // the effort the commander judged carries over; a step without one stays standard
    expect(spec.steps.map((step) => step.effort)).toEqual([undefined, "deep", undefined]);
  });

  it("leaves for_each items out and renumbers steps appended after them", () => {
    const plan = makePlan({
      status: "partial",
      steps: [
        done(1, { waitFor: [], outputSummary: "a\nb" }),
        { index: 2, waitFor: [1], forEach: { from: 1, field: "output_lines", maxParallel: 1 }, input: "do {{item}}", status: "failed" },
        { index: 3, waitFor: [1], parentIndex: 2, status: "done" },
        { index: 4, waitFor: [1], parentIndex: 2, status: "failed" },
        { index: 5, waitFor: [2], input: "sum {{ step_2.output_summary }} and {{step_1.output_files}}" },
      ],
    });
    const raw = rerunRawPlan({ ...plan, title: "Lists" });
    expect(raw.steps.map((step) => step.index)).toEqual([1, 2, 3]);
    expect(raw.steps[1].for_each).toEqual({ from: 1, field: "output_lines", max_parallel: 1 });
    expect(raw.steps[2]).toMatchObject({ wait_for: [2], input: "sum {{ step_2.output_summary }} and {{step_1.output_files}}" });
    expect(() => validatePlan({ raw, assignees: new Set(["writer"]), limits })).not.toThrow();
  });

  it("renumbers references to a step that moved", () => {
    const steps = [
      makeStep({ index: 1, waitFor: [] }),
      makeStep({ index: 2, waitFor: [1], parentIndex: 9 }),
      makeStep({ index: 3, waitFor: [1], input: "after {{step_1.output_summary}}" }),
      makeStep({ index: 4, waitFor: [3], input: "then {{step_3.output_summary}}" }),
    ];
    const raw = rerunRawPlan({ title: "t", maxParallel: 1, budget: { maxTokens: null, maxCost: null }, steps });
    expect(raw.steps.map((step) => [step.index, step.wait_for, step.input])).toEqual([
      [1, [], "do part 1"],
      [2, [1], "after {{step_1.output_summary}}"],
      [3, [2], "then {{step_2.output_summary}}"],
    ]);
  });

  it("turns a reference to a for_each item into one to its step: the step the commander appended waits for all of it", () => {
    const plan = makePlan({
      status: "partial",
      steps: [
        done(1, { waitFor: [], outputSummary: "a\nb" }),
        { index: 2, waitFor: [1], forEach: { from: 1, field: "output_lines", maxParallel: null }, input: "do {{item}}", status: "done" },
        { index: 3, waitFor: [1], parentIndex: 2, status: "done" },
        { index: 4, waitFor: [1], parentIndex: 2, status: "failed" },
        // appended by the commander after the items existed: it waits for both, one of them optional
        {
          index: 5,
          waitFor: [3, 4, 1],
          optionalWaitFor: [4],
          quorum: 3,
          input: "check {{step_3.output_summary}} and {{step_4.output_summary}}",
        },
      ],
    });
    const raw = rerunRawPlan({ ...plan, title: "Items" });
    expect(raw.steps[2]).toMatchObject({
      index: 3,
      wait_for: [2, 1],
      quorum: 2,
      input: "check {{step_2.output_summary}} and {{step_2.output_summary}}",
    });
    const spec = validatePlan({ raw, assignees: new Set(["writer"]), limits });
    expect(spec.steps.map((step) => [step.index, step.waitFor, step.optionalWaitFor, step.quorum])).toEqual([
      [1, [], [], null],
      [2, [1], [], null],
      [3, [2, 1], [], 2],
    ]);
  });
});
