/**
 * reconcile with for_each steps: expansion into children, bounded concurrency,
 * collection in item order, and downstream rendering of the collected summary.
 * Failures, cancel and retries: reconcile.for-each-failures.test.ts.
 */
import { describe, expect, it } from "vitest";
import { MAX_FOR_EACH_ITEMS } from "./for-each.ts";
import { done, live, makePlan, NOW, run, runIds, stepOf } from "./testing/fixtures.ts";
import type { ForEach, PlanCommand, PlanState, RunOutcome, StepState } from "./types.ts";

const LINES: ForEach = { from: 1, field: "output_lines", maxParallel: null };

/** Step 1 listed `summary`; step 2 maps over its lines; `extra` steps follow. */
function listPlan({
  summary = "- alpha\n- beta\n- gamma",
  forEach = LINES,
  source = {},
  mapper = {},
  extra = [],
  maxParallel = 5,
}: {
  summary?: string;
  forEach?: ForEach;
  source?: Partial<StepState>;
  mapper?: Partial<StepState>;
  extra?: Parameters<typeof makePlan>[0]["steps"];
  maxParallel?: number;
} = {}): PlanState {
  return makePlan({
    maxParallel,
    steps: [
      done(1, { waitFor: [], outputSummary: summary, ...source }),
      {
        index: 2,
        waitFor: [1],
        input: "research {{item}} ({{item_index}}) for {{request}}",
        forEach,
        onFailure: "continue",
        maxRetries: 1,
        budget: { maxTokens: 500, maxCost: null },
        ...mapper,
      },
      ...extra,
    ],
  });
}

const dispatched = (commands: PlanCommand[]) => commands.flatMap((command) => (command.type === "dispatch" ? [command.stepIndex] : []));
const ok = (summary: string, files: string[] = [], untrusted = false): RunOutcome => ({ kind: "ok", summary, files, untrusted });
let calls = 0;
/** Finish step `index`'s live run; each call mints run ids of its own, so runs of different calls never collide. */
const finish = (plan: PlanState, index: number, outcome: RunOutcome) =>
  run(
    plan,
    { type: "run-finished", stepIndex: index, runId: stepOf(plan, index).liveRunId!, outcome },
    { newRunId: runIds(`call-${++calls}`) },
  );

describe("for_each: expansion", () => {
  it("appends one child per item after the highest index; the parent collects without a run", () => {
    const result = run(listPlan({ extra: [{ index: 3, waitFor: [2], input: "{{step_2.output_summary}}" }] }), { type: "tick" });
    const parent = stepOf(result, 2);
    expect(parent).toMatchObject({
      status: "in_progress",
      liveRunId: null,
      attempts: 0,
      startedAt: NOW,
      renderedInput: null,
      expansion: { children: [4, 5, 6], items: ["alpha", "beta", "gamma"] },
    });
    expect(stepOf(result, 4)).toMatchObject({
      title: "step 2 [1/3]",
      assignee: "writer",
      input: "research alpha (1) for {{request}}",
      waitFor: [1],
      onFailure: "continue",
      maxRetries: 1,
      budget: { maxTokens: 500, maxCost: null },
      forEach: null,
      parentIndex: 2,
      expansion: null,
    });
    expect(stepOf(result, 6).title).toBe("step 2 [3/3]");
    expect(stepOf(result, 3).status).toBe("pending");
    expect(result.commands).toEqual(
      [4, 5, 6].map((index, i) => ({
        type: "dispatch",
        stepIndex: index,
        assignee: "writer",
        renderedInput: `research ${["alpha", "beta", "gamma"][i]} (${i + 1}) for the request`,
        attempt: 1,
        runId: `new-run-${i + 1}`,
        automaticRetry: false,
      })),
    );
    expect(result.changedSteps).toEqual([2, 4, 5, 6]);
    expect(result.log).toContainEqual({ stepIndex: 2, message: "for_each: 3 items from step 1 (output_lines) as steps 4-6" });
  });

  it("maps over files, fencing items from an untrusted source", () => {
    const result = run(
      listPlan({
        forEach: { from: 1, field: "output_files", maxParallel: null },
        source: { outputFiles: ["a.md", "b.md"], outputUntrusted: true },
        mapper: { input: "read {{item}}" },
      }),
      { type: "tick" },
    );
    expect(stepOf(result, 2).expansion?.items).toEqual(["a.md", "b.md"]);
    expect(stepOf(result, 3).input).toBe('read <untrusted-data source="step_1">\na.md\n</untrusted-data>');
  });

  it("an empty list completes the step at once with (no items), and downstream starts in the same reconcile", () => {
    const result = run(listPlan({ summary: "\n  \n- \n", extra: [{ index: 3, waitFor: [2], input: "after {{step_2.output_summary}}" }] }), {
      type: "tick",
    });
    expect(stepOf(result, 2)).toMatchObject({
      status: "done",
      outputSummary: "(no items)",
      outputFiles: [],
      endedAt: NOW,
      expansion: { children: [], items: [] },
    });
    expect(result.plan.steps).toHaveLength(3);
    expect(result.commands).toEqual([expect.objectContaining({ type: "dispatch", stepIndex: 3, renderedInput: "after (no items)" })]);
  });

  it("a skipped source lists nothing; a chain of for_each steps over empty lists ends partial", () => {
    const plan = listPlan({
      source: { status: "skipped", outputSummary: null },
      extra: [{ index: 3, waitFor: [2], input: "{{item}}", forEach: { from: 2, field: "output_files", maxParallel: null } }],
    });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 3)).toMatchObject({ status: "done", outputSummary: "(no items)" });
    // the source was skipped: something is missing, but the last step delivered
    expect(result.plan.status).toBe("partial");
  });

  it(`a list of more than ${MAX_FOR_EACH_ITEMS} items fails the step with a clear reason; no children`, () => {
    const summary = Array.from({ length: MAX_FOR_EACH_ITEMS + 1 }, (_, i) => `${i + 1}. item`).join("\n");
    const result = run(listPlan({ summary, mapper: { onFailure: "ask_commander" } }), { type: "tick" });
    const reason = `for_each: step 1 listed ${MAX_FOR_EACH_ITEMS + 1} items (output_lines); the limit is ${MAX_FOR_EACH_ITEMS}`;
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", failureReason: reason, decisionPending: true, expansion: null });
    expect(result.plan.steps).toHaveLength(2);
    expect(result.commands).toEqual([{ type: "ask-commander", stepIndex: 2, failureReason: reason }]);
    // exactly the limit is fine
    const enough = Array.from({ length: MAX_FOR_EACH_ITEMS }, (_, i) => `- ${i}`).join("\n");
    expect(stepOf(run(listPlan({ summary: enough }), { type: "tick" }), 2).expansion?.children).toHaveLength(MAX_FOR_EACH_ITEMS);
  });

  it("too many items under continue fails the step and its downstream goes on; under abort_plan ends the plan", () => {
    const summary = Array.from({ length: 101 }, (_, i) => `- ${i}`).join("\n");
    const continued = run(listPlan({ summary, extra: [{ index: 3, waitFor: [2] }] }), { type: "tick" });
    expect(stepOf(continued, 2).status).toBe("failed");
    expect(dispatched(continued.commands)).toEqual([3]);
    const aborted = run(
      listPlan({
        summary,
        mapper: { onFailure: "abort_plan" },
        extra: [{ index: 3, waitFor: [], status: "in_progress", liveRunId: "run-3" }],
      }),
      { type: "tick" },
    );
    expect(aborted.plan.status).toBe("failed");
    expect(aborted.commands).toEqual([
      { type: "cancel-run", runId: "run-3" },
      { type: "plan-ended", status: "failed" },
    ]);
  });

  it("does not expand while the plan is paused", () => {
    const plan = listPlan({ extra: [{ index: 3, waitFor: [], status: "blocked", liveRunId: "run-3" }] });
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2).status).toBe("pending");
    expect(result.plan.steps).toHaveLength(3);
  });

  it("a plan budget already spent refuses the for_each step itself (one question, not one per item)", () => {
    const plan = { ...listPlan({ source: { usage: { tokens: 100, cost: 0 } } }), budget: { maxTokens: 100, maxCost: null } };
    const result = run(plan, { type: "tick" });
    expect(stepOf(result, 2)).toMatchObject({ status: "failed", decisionPending: true, expansion: null });
    expect(result.commands).toEqual([
      { type: "ask-commander", stepIndex: 2, failureReason: expect.stringContaining("budget exhausted: plan max_tokens") },
    ]);
  });
});

describe("for_each: bounded concurrency", () => {
  it("starts at most max_parallel children, then the next in index order as each one ends", () => {
    let plan = run(listPlan({ summary: "a\nb\nc\nd\ne", forEach: { ...LINES, maxParallel: 2 } }), { type: "tick" }).plan;
    expect(plan.steps.filter((step) => step.status === "in_progress" && step.parentIndex === 2).map((step) => step.index)).toEqual([3, 4]);
    // the second child ends first: the third starts, no wave waits for the first
    const result = finish(plan, 4, ok("b done"));
    expect(dispatched(result.commands)).toEqual([5]);
    plan = result.plan;
    expect(dispatched(finish(plan, 3, ok("a done")).commands)).toEqual([6]);
  });

  it("the plan's max_parallel and the pools still apply; the collecting parent takes no slot", () => {
    const result = run(listPlan({ maxParallel: 1, forEach: { ...LINES, maxParallel: 3 } }), { type: "tick" });
    expect(dispatched(result.commands)).toEqual([3]);
    const pooled = run(
      listPlan({ forEach: { ...LINES, maxParallel: 3 } }),
      { type: "tick" },
      { capacity: { agents: { writer: { limit: 2, live: 1 } }, models: {}, agentModel: {} } },
    );
    expect(dispatched(pooled.commands)).toEqual([3]);
  });

  it("a child in backoff frees its slot; a blocked child keeps it", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        {
          index: 2,
          waitFor: [1],
          status: "in_progress",
          forEach: { ...LINES, maxParallel: 1 },
          expansion: { children: [3, 4], items: ["a", "b"] },
        },
        { index: 3, waitFor: [1], parentIndex: 2, attempts: 1, status: "pending", transientFailures: 1, retryAt: NOW + 1000 },
        { index: 4, waitFor: [1], parentIndex: 2 },
      ],
    });
    expect(dispatched(run(plan, { type: "tick" }).commands)).toEqual([4]);
  });

  it("a twin among the children joins the live run but still needs one of the parent's slots", () => {
    const open = run(listPlan({ summary: "same\nsame\nother", mapper: { input: "do {{item}}" }, forEach: { ...LINES, maxParallel: 2 } }), {
      type: "tick",
    });
    expect(dispatched(open.commands)).toEqual([3]);
    expect(stepOf(open, 4)).toMatchObject({ status: "in_progress", liveRunId: stepOf(open, 3).liveRunId });
    expect(stepOf(open, 5).status).toBe("pending");
    const narrow = run(listPlan({ summary: "same\nsame", mapper: { input: "do {{item}}" }, forEach: { ...LINES, maxParallel: 1 } }), {
      type: "tick",
    });
    expect(stepOf(narrow, 4).status).toBe("pending");
  });
});

describe("for_each: collecting", () => {
  it("completes when every child has ended: summaries in item order, files once each, untrusted if any", () => {
    let plan = run(
      listPlan({ extra: [{ index: 3, waitFor: [2], input: "report: {{step_2.output_summary}} / {{step_2.output_files}}" }] }),
      { type: "tick" },
    ).plan;
    plan = finish(plan, 6, ok("third\nresult", ["c.md", "shared.md"])).plan;
    plan = finish(plan, 4, ok("first", ["a.md", "shared.md"], true)).plan;
    expect(stepOf(plan, 2).status).toBe("in_progress");
    const result = finish(plan, 5, ok("second"));
    const summary = "1. alpha: first\n2. beta: second\n3. gamma: third result";
    expect(stepOf(result, 2)).toMatchObject({
      status: "done",
      outputSummary: summary,
      outputFiles: ["a.md", "shared.md", "c.md"],
      outputUntrusted: true,
      endedAt: NOW,
      liveRunId: null,
    });
    expect(result.log).toContainEqual({ stepIndex: 2, message: "for_each: collected 3 items; done" });
    // downstream reads the collected summary, fenced because one child's output was untrusted
    expect(result.commands).toEqual([
      expect.objectContaining({
        type: "dispatch",
        stepIndex: 3,
        renderedInput: `report: <untrusted-data source="step_2">\n${summary}\n</untrusted-data> / <untrusted-data source="step_2">\na.md, shared.md, c.md\n</untrusted-data>`,
      }),
    ]);
  });

  it("an untrusted list taints the collected summary (the items are in it)", () => {
    let plan = run(listPlan({ summary: "x", source: { outputUntrusted: true } }), { type: "tick" }).plan;
    plan = finish(plan, 3, ok("fine")).plan;
    expect(stepOf(plan, 2)).toMatchObject({ status: "done", outputUntrusted: true, outputSummary: "1. x: fine" });
  });

  it("a child given a fenced item produces untrusted output even when its run reports trusted", () => {
    let plan = run(listPlan({ summary: "x", source: { outputUntrusted: true } }), { type: "tick" }).plan;
    plan = finish(plan, 3, ok("fine")).plan;
    expect(stepOf(plan, 3)).toMatchObject({ status: "done", outputUntrusted: true });
  });

  it("a child failed under on_failure continue reads (failed: …); the parent is done and the plan is partial", () => {
    let plan = run(listPlan({ summary: "a\nb" }), { type: "tick" }).plan;
    plan = finish(plan, 3, { kind: "failed", transient: false, reason: "404" }).plan;
    expect(stepOf(plan, 3)).toMatchObject({ status: "failed", failureReason: "404" });
    const result = finish(plan, 4, ok("b ok"));
    expect(stepOf(result, 2)).toMatchObject({ status: "done", outputSummary: "1. a: (failed: 404)\n2. b: b ok" });
    expect(result.plan.status).toBe("partial");
  });

  it("a for_each over a collected summary maps over its lines", () => {
    let plan = run(
      listPlan({
        summary: "a\nb",
        extra: [{ index: 3, waitFor: [2], input: "polish {{item}}", forEach: { from: 2, field: "output_lines", maxParallel: null } }],
      }),
      { type: "tick" },
    ).plan;
    plan = finish(plan, 4, ok("A")).plan;
    const result = finish(plan, 5, ok("B"));
    expect(stepOf(result, 3).expansion).toEqual({ children: [6, 7], items: ["a: A", "b: B"] });
    expect(stepOf(result, 6).input).toBe("polish a: A");
  });
});

describe("for_each: events on an expanded step", () => {
  it("a child's run result is an ordinary run result", () => {
    const plan = makePlan({
      steps: [
        done(1, { waitFor: [] }),
        { index: 2, waitFor: [1], status: "in_progress", forEach: LINES, expansion: { children: [3], items: ["a"] } },
        live(3, { waitFor: [1], parentIndex: 2 }),
      ],
    });
    const result = run(plan, { type: "run-started", stepIndex: 3, runId: "run-3" });
    expect(result.changedSteps).toEqual([]);
    // an event naming the collector finds no run of its own
    expect(run(plan, { type: "run-finished", stepIndex: 2, runId: "run-2", outcome: ok("x") }).log[0].message).toContain("stale");
  });
});
