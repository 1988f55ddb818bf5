/**
 * Hostile plans: the size limit is checked before any step is looked at, text fields
 * refuse NUL and unpaired surrogates, and every integer fits the column that stores it.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { MAX_REPORTED_ISSUES, PlanValidationError, type PlanIssue } from "./errors.ts";
import { makePlan } from "./testing/fixtures.ts";
import { ancestors, validateAppendedSteps, validatePlan, type PlanLimits } from "./validate-plan.ts";
import { MAX_INT32 } from "./text.ts";

const limits: PlanLimits = { maxSteps: 200, maxInputChars: 20_000, defaultMaxParallel: 4, defaultMaxRetries: 3 };
const assignees = new Set(["writer"]);

function rawStep(index: number, extra: Record<string, unknown> = {}) {
  return { index, title: `step ${index}`, assignee: "writer", input: `part ${index}`, ...extra };
}

function issuesOf(run: () => unknown): PlanIssue[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanValidationError);
    return (error as PlanValidationError).issues;
  }
  throw new Error("expected the plan to be rejected");
}

/** Steps whose every property read is counted: an oversized plan must not be read step by step. */
function trappedSteps(count: number): { steps: unknown[]; reads: () => number } {
  let reads = 0;
  const step = new Proxy(rawStep(1), {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { steps: Array.from({ length: count }, () => step), reads: () => reads };
}

describe("plan size is checked before anything else", () => {
  it("refuses a 10,000-step plan with one issue, without reading its steps", () => {
    const { steps, reads } = trappedSteps(10_000);
    const issues = issuesOf(() => validatePlan({ raw: { title: "huge", steps }, assignees, limits }));
    expect(issues).toEqual([{ stepIndex: null, field: "steps", message: "the plan has 10000 steps; the limit is 200" }]);
    expect(reads()).toBe(0);
  });

  it("refuses appended steps past the limit without reading them", () => {
    const existing = makePlan({ steps: [{ index: 1 }, { index: 2 }] });
    const { steps, reads } = trappedSteps(199);
    const issues = issuesOf(() => validateAppendedSteps({ existing, raw: steps, assignees, limits }));
    expect(issues).toEqual([{ stepIndex: null, field: "steps", message: "the plan would have 201 steps; the limit is 200" }]);
    expect(reads()).toBe(0);
  });

  it("still accepts a plan of exactly the limit whose last step reads the first through a long chain", () => {
    const steps = Array.from({ length: 200 }, (_, i) => rawStep(i + 1, i === 199 ? { input: "{{step_1.output_summary}}" } : {}));
    const spec = validatePlan({ raw: { title: "chain", steps }, assignees, limits });
    expect(spec.steps).toHaveLength(200);
  });

  it("reports a template naming a step that is not upstream, also in a wide plan", () => {
    const steps = [rawStep(1), rawStep(2, { wait_for: [] }), rawStep(3, { wait_for: [2], input: "{{step_1.output_summary}}" })];
    const issues = issuesOf(() => validatePlan({ raw: { title: "x", steps }, assignees, limits }));
    expect(issues).toEqual([expect.objectContaining({ stepIndex: 3, field: "input", message: expect.stringContaining("not upstream") })]);
  });
});

describe("template references, checked once per plan", () => {
  it("report exactly the references to steps that are not upstream (property, restated with a plain graph walk)", () => {
    const dag = fc.integer({ min: 2, max: 40 }).chain((n) =>
      fc.tuple(
        // step i (1-based) waits for a subset of the steps before it, and reads one step's summary
        fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => j + 1)))),
        fc.tuple(...Array.from({ length: n }, () => fc.integer({ min: 1, max: n }))),
      ),
    );
    let reported = 0;
    let accepted = 0;
    fc.assert(
      fc.property(dag, ([waits, reads]) => {
        const steps = waits.map((waitFor, i) => rawStep(i + 1, { wait_for: waitFor, input: `{{step_${reads[i]}.output_summary}}` }));
        const graph = new Map(waits.map((waitFor, i) => [i + 1, waitFor] as const));
        const expected = reads.flatMap((read, i) => (read !== i + 1 && !ancestors(i + 1, graph).has(read) ? [i + 1] : []));
        const selfReads = reads.flatMap((read, i) => (read === i + 1 ? [i + 1] : []));
        let issues: PlanIssue[] = [];
        try {
          validatePlan({ raw: { title: "x", steps }, assignees, limits });
        } catch (error) {
          issues = (error as PlanValidationError).issues;
        }
        const notUpstream = issues.filter((issue) => issue.message.includes("not upstream")).map((issue) => issue.stepIndex);
        expect(notUpstream).toEqual(expected);
        expect(issues).toHaveLength(expected.length + selfReads.length);
        reported += expected.length;
        // references that only the closure can accept: upstream, but not a direct dependency
        accepted += reads.filter((read, i) => !waits[i].includes(read) && ancestors(i + 1, graph).has(read)).length;
      }),
      { numRuns: 200 },
    );
    // both outcomes must be reached, or the generator tests nothing
    expect(reported).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(100);
  });
});

describe("text fields", () => {
  it.each([
    ["a NUL", "a\u0000b"],
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "\udc00"],
  ])("refuse %s, naming the field", (_, bad) => {
    const titleIssues = issuesOf(() => validatePlan({ raw: { title: bad, steps: [rawStep(1)] }, assignees, limits }));
    expect(titleIssues).toEqual([expect.objectContaining({ stepIndex: null, field: "title" })]);
    const inputIssues = issuesOf(() => validatePlan({ raw: { title: "x", steps: [rawStep(1, { input: bad })] }, assignees, limits }));
    expect(inputIssues).toEqual([
      expect.objectContaining({ stepIndex: 1, field: "input", message: expect.stringMatching(/NUL|surrogate/) }),
    ]);
  });

  it("accept a well-formed surrogate pair", () => {
    expect(validatePlan({ raw: { title: "🎉", steps: [rawStep(1, { input: "ok 🎉" })] }, assignees, limits }).title).toBe("🎉");
  });
});

describe("integers fit their columns", () => {
  const tooBig = MAX_INT32 + 1;
  it.each([
    ["max_parallel", { max_parallel: tooBig }, null, "max_parallel"],
    ["budget.max_tokens", { budget: { max_tokens: tooBig } }, null, "budget.max_tokens"],
  ])("refuses a plan's %s of 2^31", (_, extra, stepIndex, field) => {
    const issues = issuesOf(() => validatePlan({ raw: { title: "x", ...extra, steps: [rawStep(1)] }, assignees, limits }));
    expect(issues).toEqual([expect.objectContaining({ stepIndex, field })]);
  });

  it.each([
    ["budget", { budget: { max_tokens: tooBig } }],
    ["quorum", { quorum: tooBig, wait_for: [1] }],
    ["for_each", { wait_for: [1], for_each: { from: 1, field: "output_lines", max_parallel: tooBig } }],
  ])("refuses a step's %s holding 2^31", (field, extra) => {
    const issues = issuesOf(() => validatePlan({ raw: { title: "x", steps: [rawStep(1), rawStep(2, extra)] }, assignees, limits }));
    expect(issues).toEqual([expect.objectContaining({ stepIndex: 2, field })]);
  });

  it("accepts the largest value a column holds", () => {
    const spec = validatePlan({
      raw: { title: "x", max_parallel: MAX_INT32, budget: { max_tokens: MAX_INT32 }, steps: [rawStep(1)] },
      assignees,
      limits,
    });
    expect(spec.maxParallel).toBe(MAX_INT32);
  });
});

describe("a hostile plan gets a bounded answer", () => {
  it("refuses a ~1 MB wait_for of one repeated entry with one issue naming the step, before the schema reads it", () => {
    const waitFor = Array.from({ length: 499_000 }, () => 1);
    expect(JSON.stringify(waitFor).length).toBeGreaterThan(990_000);
    const raw = { title: "flood", steps: [rawStep(1), rawStep(2, { wait_for: waitFor })] };
    const error = errorOf(() => validatePlan({ raw, assignees, limits }));
    expect(error.issues).toEqual([
      { stepIndex: 2, field: "wait_for", message: "has 499000 entries; a step can wait for at most 200 steps" },
    ]);
    expect(error.message.length).toBeLessThan(500);
  });

  it("names a step without a usable index by its position", () => {
    const raw = { title: "flood", steps: [rawStep(1), { ...rawStep(2), index: "two", wait_for: Array(201).fill(1) }] };
    expect(issuesOf(() => validatePlan({ raw, assignees, limits }))).toEqual([
      { stepIndex: null, field: "wait_for", message: "has 201 entries; a step can wait for at most 200 steps (the step at position 2)" },
    ]);
  });

  it("checks appended steps' wait_for lengths the same way", () => {
    const existing = makePlan({ steps: [{ index: 1 }] });
    const raw = [rawStep(2, { wait_for: Array(5_000).fill(1) })];
    expect(issuesOf(() => validateAppendedSteps({ existing, raw, assignees, limits }))).toEqual([
      { stepIndex: 2, field: "wait_for", message: "has 5000 entries; a step can wait for at most 200 steps" },
    ]);
  });

  it("lists the first 50 relational issues and counts the rest, in the issues and in the message", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (count) => {
        // every step names an assignee that is not in the conversation: one issue each
        const steps = Array.from({ length: count }, (_, i) => rawStep(i + 1, { assignee: "nobody" }));
        const error = errorOf(() => validatePlan({ raw: { title: "many", steps }, assignees, limits }));
        expect(error.issues).toHaveLength(Math.min(count, MAX_REPORTED_ISSUES));
        expect(error.omittedIssues).toBe(Math.max(0, count - MAX_REPORTED_ISSUES));
        expect(error.issues.map((issue) => issue.stepIndex)).toEqual(
          Array.from({ length: Math.min(count, MAX_REPORTED_ISSUES) }, (_, i) => i + 1),
        );
        expect(error.message.includes("more")).toBe(count > MAX_REPORTED_ISSUES);
        expect(error.message.startsWith(`The plan is invalid (${count} `)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("lists the first 50 schema issues and counts the rest", () => {
    const steps = Array.from({ length: 200 }, (_, i) => ({ ...rawStep(i + 1), title: 7 }));
    const error = errorOf(() => validatePlan({ raw: { title: "typed", steps }, assignees, limits }));
    expect(error.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(error.issues[0]).toMatchObject({ stepIndex: 1, field: "title" });
    expect(error.omittedIssues).toBe(150);
  });
});

function errorOf(run: () => unknown): PlanValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlanValidationError) return error;
    throw error;
  }
  throw new Error("expected the plan to be rejected");
}
