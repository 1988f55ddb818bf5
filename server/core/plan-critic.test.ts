import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { critiquePlan, inputSimilarity, type PlanFindingKind } from "./plan-critic.ts";
import type { PlanSpec, StepSpec } from "./types.ts";

function step(index: number, overrides: Partial<StepSpec> = {}): StepSpec {
  return {
    index,
    title: `Step ${index}`,
    assignee: "researcher",
    input: `Research topic ${index} in depth for {{request}} and return a summary of the main findings.`,
    waitFor: [],
    optionalWaitFor: [],
    quorum: null,
    onFailure: "ask_commander",
    maxRetries: 3,
    budget: { maxTokens: null, maxCost: null },
    forEach: null,
    ...overrides,
  };
}

function plan(steps: StepSpec[]): PlanSpec {
  return { title: "p", maxParallel: 4, budget: { maxTokens: null, maxCost: null }, steps };
}

const kinds = (spec: PlanSpec): PlanFindingKind[] => critiquePlan(spec).map((finding) => finding.kind);

/** A well-made fan-out: n distinct researched topics and one synthesis reading each. */
function goodFanOut(topics: string[]): PlanSpec {
  const branches = topics.map((topic, i) =>
    step(i + 1, {
      assignee: i % 2 === 0 ? "researcher" : "analyst",
      input: `Objective: research ${topic} for {{request}}. Stay within ${topic} only. Return a summary of strengths and weaknesses.`,
    }),
  );
  const synthesis = step(topics.length + 1, {
    assignee: "commander",
    title: "Synthesis",
    input: `Bring the findings together into one recommendation for the team: ${topics.map((_, i) => `{{step_${i + 1}.output_summary}}`).join(" ")}`,
    waitFor: branches.map((branch) => branch.index),
  });
  return plan([...branches, synthesis]);
}

const topicArb = fc.uniqueArray(fc.stringMatching(/^[a-z]{4,10}$/), { minLength: 1, maxLength: 6 });

describe("the plan critic", () => {
  it("finds nothing in a well-made fan-out with a synthesis (property)", () => {
    fc.assert(
      fc.property(topicArb, (topics) => {
        expect(critiquePlan(goodFanOut(topics))).toEqual([]);
      }),
    );
  });

  it("names the branches when several steps end the plan and nothing joins them (property)", () => {
    fc.assert(
      fc.property(
        topicArb.filter((topics) => topics.length >= 2),
        (topics) => {
          const spec = goodFanOut(topics);
          const withoutSynthesis = plan(spec.steps.slice(0, -1));
          const findings = critiquePlan(withoutSynthesis).filter((finding) => finding.kind === "fan-out-without-synthesis");
          expect(findings).toHaveLength(1);
          expect(findings[0].steps).toEqual(withoutSynthesis.steps.map((s) => s.index));
        },
      ),
    );
  });

  it("flags a step whose own words state no objective, naming it", () => {
    const spec = plan([
      step(1, { input: "{{request}}" }),
      step(2, { assignee: "commander", input: "Write the final answer from {{step_1.output_summary}} for everyone", waitFor: [1] }),
    ]);
    const findings = critiquePlan(spec);
    expect(findings.map((f) => [f.kind, f.steps])).toContainEqual(["no-objective", [1]]);
    expect(findings.find((f) => f.kind === "no-objective")?.message).toContain("Step 1");
  });

  it("flags a delegated step that never says what to hand back, but not the commander's synthesis", () => {
    const spec = plan([
      step(1, { input: "Look into the history of the city of Lyon and its many bridges over the rivers" }),
      step(2, {
        assignee: "commander",
        input: "Bring everything together for the whole team now: {{step_1.output_summary}}",
        waitFor: [1],
      }),
    ]);
    expect(kinds(spec)).toEqual(["no-expected-output"]);
  });

  it("does not ask a person's form step or a for_each template for a brief", () => {
    const spec = plan([
      step(1, { assignee: "user", input: "ok?" }),
      step(2, { input: "{{item}}", waitFor: [1], forEach: { from: 1, field: "output_lines", maxParallel: null } }),
    ]);
    expect(kinds(spec)).not.toContain("no-objective");
    expect(kinds(spec)).not.toContain("no-expected-output");
  });

  it("flags near-duplicate steps of one assignee that differ only in wording, not those of different agents (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{4,10}$/), fc.constantFrom(".", "!", ""), (topic, mark) => {
        const input = `Research ${topic} for the team and return a summary of its pricing and limits`;
        const twin = `${input.toUpperCase()}${mark}`;
        const synthesis = (waitFor: number[]) =>
          step(3, { assignee: "commander", input: "Bring both results together into one answer for the team", waitFor });
        const same = plan([step(1, { input }), step(2, { input: twin }), synthesis([1, 2])]);
        expect(
          critiquePlan(same)
            .filter((f) => f.kind === "near-duplicate")
            .map((f) => f.steps),
        ).toEqual([[1, 2]]);
        const other = plan([step(1, { input }), step(2, { input: twin, assignee: "analyst" }), synthesis([1, 2])]);
        expect(kinds(other)).not.toContain("near-duplicate");
      }),
    );
  });

  it("flags a template reading a step its step does not wait for directly", () => {
    const spec = plan([
      step(1),
      step(2, { waitFor: [1] }),
      step(3, {
        assignee: "commander",
        input: "Combine {{step_1.output_summary}} and {{step_2.output_summary}} into one answer",
        waitFor: [2],
      }),
    ]);
    const finding = critiquePlan(spec).find((f) => f.kind === "reads-unawaited-step");
    expect(finding?.steps).toEqual([3, 1]);
    expect(finding?.message).toContain("add 1 to its wait_for");
  });

  it("measures similarity as 1 for identical wording and low for unrelated text", () => {
    expect(inputSimilarity("Compare A with B, please.", "compare a with b please")).toBe(1);
    expect(inputSimilarity("Research Postgres pricing and limits", "Write a poem about the sea at night")).toBe(0);
  });
});
