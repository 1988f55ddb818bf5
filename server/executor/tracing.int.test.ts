/**
 * Traces along the task graph: a diamond plan (a → b, a → c, b,c → d) run by the
 * executor with the real agent runtime on the offline model, traced into an in-memory
 * exporter. The span tree is the DAG: the plan span over the step spans, each step's
 * runs under it (two for the step retried after a transient failure), the model and
 * tool calls under their run, `wait_for` edges as links. A run taken over after its
 * process stopped stays in the plan's trace and links to the run it replaces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { offlineAgentRunner } from "./testing/offline-runtime.ts";
import { ok, NO_USAGE } from "./testing/scripted-runner.ts";
import { flushTracing, fromTraceparent, planSpanId, planTraceId, startTracing, stepSpanId, stopTracing } from "../observability/tracing.ts";
import { formatSpanTree } from "../observability/testing/span-tree.ts";
import { Registry } from "prom-client";
import { registerInstruments } from "../observability/instruments.ts";

const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  expect(await startTracing({ exporter, env: {} })).toBe(true);
});
afterAll(() => stopTracing());

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

function ancestors(span: ReadableSpan, byId: Map<string, ReadableSpan>): string[] {
  const chain: string[] = [];
  for (let parent = parentOf(span); parent; parent = byId.get(parent) && parentOf(byId.get(parent)!)) chain.push(parent);
  return chain;
}

describe("a diamond plan on the offline model", () => {
  let fixture: ExecutorFixture;
  beforeAll(async () => {
    fixture = await createExecutorFixture({ createRunner: offlineAgentRunner });
  });
  afterAll(() => fixture?.close());

  it("traces the plan as its DAG: steps under the plan, runs under steps, model and tool calls under runs", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Diamond",
        steps: [
          { index: 1, title: "a", assignee: "researcher", input: "Collect the facts about queues", wait_for: [] },
          {
            index: 2,
            title: "b",
            assignee: "analyst",
            input: "@offline fail=transient fail_attempts=1\nAnalyse {{step_1.output_summary}}",
            wait_for: [1],
          },
          { index: 3, title: "c", assignee: "writer", input: "Outline {{step_1.output_summary}}", wait_for: [1] },
          {
            index: 4,
            title: "d",
            assignee: "writer",
            input: "Join {{step_2.output_summary}} and {{step_3.output_summary}}",
            wait_for: [2, 3],
          },
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    await flushTracing();

    const traceId = planTraceId(plan.id);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    console.log(`trace ${traceId} of plan "Diamond":\n${formatSpanTree(spans)}`);
    const byId = new Map(spans.map((span) => [idOf(span), span]));

    const plans = spans.filter((span) => span.name === "plan");
    expect(plans).toHaveLength(1);
    expect(idOf(plans[0])).toBe(planSpanId(plan.id));
    expect(parentOf(plans[0])).toBeUndefined();
    expect(plans[0].attributes["baton.plan.status"]).toBe("completed");

    const rows = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    const steps = spans.filter((span) => span.name === "step");
    expect(steps.map((span) => span.attributes["baton.step.index"]).sort()).toEqual([1, 2, 3, 4]);
    const stepSpan = (index: number) => steps.find((span) => span.attributes["baton.step.index"] === index)!;
    for (const row of rows) {
      const span = stepSpan(row.index);
      expect(idOf(span)).toBe(stepSpanId(row.id));
      expect(parentOf(span)).toBe(planSpanId(plan.id));
      // wait_for edges are links to the dependencies' step spans
      const linked = span.links.map((link) => link.context.spanId).sort();
      expect(linked).toEqual(row.waitFor.map((index) => stepSpanId(rows.find((r) => r.index === index)!.id)).sort());
      expect(span.links.every((link) => link.context.traceId === traceId && link.attributes?.["baton.link"] === "wait_for")).toBe(true);
    }
    expect(rows[3].waitFor).toEqual([2, 3]);

    // runs under their step: two for the step retried after a transient failure
    const runs = spans.filter((span) => span.name === "run");
    const runsOf = (index: number) => runs.filter((span) => parentOf(span) === idOf(stepSpan(index)));
    expect(runs).toHaveLength(5);
    expect(runsOf(1)).toHaveLength(1);
    expect(runsOf(3)).toHaveLength(1);
    expect(runsOf(4)).toHaveLength(1);
    expect(runsOf(2).map((span) => [span.attributes["baton.run.attempt"], span.attributes["baton.run.outcome"]])).toEqual([
      [1, "failed"],
      [2, "ok"],
    ]);

    // the AI SDK's model-call spans are inside each run, and the finish tool's call inside a model call
    for (const run of runs) {
      const inside = spans.filter((span) => ancestors(span, byId).includes(idOf(run)));
      expect(inside.some((span) => span.name.startsWith("ai.streamText"))).toBe(true);
    }
    const toolCalls = spans.filter((span) => span.name === "ai.toolCall");
    expect(toolCalls.length).toBeGreaterThanOrEqual(4);
    for (const call of toolCalls) expect(ancestors(call, byId).some((id) => byId.get(id)?.name === "run")).toBe(true);

    // each run row keeps its span's context
    const runRows = await fixture.db.prisma.run.findMany({ where: { planId: plan.id } });
    expect(runRows).toHaveLength(5);
    for (const row of runRows) {
      const stored = fromTraceparent(row.traceContext);
      expect(stored?.traceId).toBe(traceId);
      expect(
        runs.find((span) => span.attributes["baton.run.id"] === row.id) &&
          idOf(runs.find((span) => span.attributes["baton.run.id"] === row.id)!),
      ).toBe(stored?.spanId);
    }
  });
});

describe("a run taken over after its process stopped", () => {
  let fixture: ExecutorFixture;
  beforeAll(async () => {
    fixture = await createExecutorFixture({
      // step "hang" never finishes its first attempt: its process stops under it
      script: (request, { attempt }) =>
        request.input.includes("hang") && attempt === 1
          ? new Promise((resolve) =>
              request.signal.addEventListener("abort", () =>
                resolve({ kind: "failed", transient: true, reason: "aborted", usage: NO_USAGE }),
              ),
            )
          : ok(`done: ${request.input.slice(0, 20)}`),
    });
  });
  afterAll(() => fixture?.close());

  it("continues the plan's trace and links the new run to the lost one", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Takeover",
        steps: [
          { index: 1, title: "a", assignee: "researcher", input: "first", wait_for: [] },
          { index: 2, title: "b", assignee: "analyst", input: "hang", wait_for: [1] },
        ],
      },
    });
    const step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 2 } });
    // the run is live and its span started (its context is on the row)
    let lost = null;
    for (let polls = 0; !lost && polls < 2_000; polls += 1) {
      lost = await fixture.db.prisma.run.findFirst({ where: { stepId: step.id, status: "running", traceContext: { not: null } } });
      if (!lost) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(lost).not.toBeNull();

    const takeovers = async () => {
      const registry = new Registry();
      registerInstruments(registry);
      return Number(/^baton_lease_takeovers_total (\d+)$/m.exec(await registry.metrics())?.[1]);
    };
    const takenOverBefore = await takeovers();
    await fixture.restart(); // the new executor finds the run orphaned and takes it over
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    await flushTracing();
    expect(await takeovers()).toBe(takenOverBefore + 1);

    const traceId = planTraceId(plan.id);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    console.log(`trace ${traceId} of plan "Takeover":\n${formatSpanTree(spans)}`);
    const runs = await fixture.db.prisma.run.findMany({ where: { stepId: step.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((run) => run.status)).toEqual(["lost", "succeeded"]);
    const [before, after] = runs.map((run) => spans.find((span) => span.name === "run" && span.attributes["baton.run.id"] === run.id)!);
    expect(before.attributes["baton.run.outcome"]).toBe("aborted");
    for (const span of [before, after]) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(parentOf(span)).toBe(stepSpanId(step.id));
    }
    expect(fromTraceparent(runs[0].traceContext)?.spanId).toBe(idOf(before));
    expect(after.links).toHaveLength(1);
    expect(after.links[0].context.spanId).toBe(idOf(before));
    expect(after.links[0].attributes).toMatchObject({ "baton.link": "takes-over", "baton.run.id": runs[0].id });
    expect(spans.filter((span) => span.name === "step" && parentOf(span) === planSpanId(plan.id))).toHaveLength(2);
  });
});
