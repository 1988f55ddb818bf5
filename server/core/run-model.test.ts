/**
 * Which model a step's run uses (run-model.ts): examples of each rule, then
 * properties over every combination of inputs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chooseRunModel, MODEL_REASONS, modelReasonOf, type RunModelInput } from "./run-model.ts";
import { EFFORT_LEVELS, ESCALATION_CAUSES } from "./types.ts";
import { rawStepSchema } from "./plan-schema.ts";

const base: RunModelInput = {
  agentModel: "openai:gpt-agent",
  effort: null,
  effortModels: { light: "openai:gpt-small", deep: "openai:gpt-deep" },
  escalationModel: "openai:gpt-strong",
  lastFailure: null,
  escalatedAlready: false,
  hedge: null,
};

describe("chooseRunModel", () => {
  it("runs a standard step on the agent's own model", () => {
    expect(chooseRunModel(base)).toEqual({ model: "openai:gpt-agent", reason: "agent" });
    expect(chooseRunModel({ ...base, effort: "standard" })).toEqual({ model: "openai:gpt-agent", reason: "agent" });
  });

  it("maps light and deep steps to the admin's models, an unmapped level to the agent's", () => {
    expect(chooseRunModel({ ...base, effort: "light" })).toEqual({ model: "openai:gpt-small", reason: "effort:light" });
    expect(chooseRunModel({ ...base, effort: "deep" })).toEqual({ model: "openai:gpt-deep", reason: "effort:deep" });
    expect(chooseRunModel({ ...base, effort: "deep", effortModels: { light: "x:y" } })).toEqual({
      model: "openai:gpt-agent",
      reason: "agent",
    });
  });

  it("escalates once after a failure a stronger model could fix, and only with an escalation model", () => {
    const failed = { ...base, effort: "light" as const, lastFailure: "malformed-tool-calls" as const };
    expect(chooseRunModel(failed)).toEqual({ model: "openai:gpt-strong", reason: "escalation" });
    expect(chooseRunModel({ ...failed, escalatedAlready: true })).toEqual({ model: "openai:gpt-small", reason: "effort:light" });
    expect(chooseRunModel({ ...failed, escalationModel: null })).toEqual({ model: "openai:gpt-small", reason: "effort:light" });
  });

  it("runs a hedge twin on its hedge model, whatever else holds", () => {
    expect(chooseRunModel({ ...base, lastFailure: "refused", hedge: "openai:gpt-fast" })).toEqual({
      model: "openai:gpt-fast",
      reason: "hedge",
    });
  });

  it("reads an unknown stored reason as the agent's own model", () => {
    expect(modelReasonOf("effort:deep")).toBe("effort:deep");
    expect(modelReasonOf("something-new")).toBe("agent");
  });

  const model = fc.constantFrom("a:1", "b:2", "c:3");
  const inputs = fc.record({
    agentModel: model,
    effort: fc.constantFrom(null, undefined, ...EFFORT_LEVELS),
    effortModels: fc.record({ light: model, deep: model }, { requiredKeys: [] }),
    escalationModel: fc.option(model),
    lastFailure: fc.option(fc.constantFrom(...ESCALATION_CAUSES)),
    escalatedAlready: fc.boolean(),
    hedge: fc.option(model),
  });

  it("property: the model always comes from the input the reason names", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const { model: chosen, reason } = chooseRunModel(input);
        expect(MODEL_REASONS).toContain(reason);
        const source = {
          agent: input.agentModel,
          "effort:light": input.effortModels.light,
          "effort:deep": input.effortModels.deep,
          escalation: input.escalationModel,
          hedge: input.hedge,
        }[reason];
        expect(chosen).toBe(source);
        if (reason === "effort:light") expect(input.effort).toBe("light");
        if (reason === "effort:deep") expect(input.effort).toBe("deep");
      }),
    );
  });

  it("property: escalation happens exactly when a fixable failure meets an unused escalation model (no hedge)", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const escalates = input.hedge === null && input.escalationModel !== null && input.lastFailure !== null && !input.escalatedAlready;
        expect(chooseRunModel(input).reason === "escalation").toBe(escalates);
        // escalated once: never again, whatever failed
        expect(chooseRunModel({ ...input, escalatedAlready: true }).reason).not.toBe("escalation");
      }),
    );
  });

  it("property: without effort, failure or hedge the run is on the agent's model", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const plain = { ...input, effort: "standard" as const, lastFailure: null, hedge: null };
        expect(chooseRunModel(plain)).toEqual({ model: input.agentModel, reason: "agent" });
      }),
    );
  });
});

describe("the commander is told about effort", () => {
  it("the plan schema's steps offer light, standard and deep, with when to use each", () => {
    const effort = rawStepSchema.shape.effort;
    expect(effort.unwrap().options).toEqual(["light", "standard", "deep"]);
    expect(effort.description).toMatch(/light for routine work.*deep for hard reasoning/);
  });
});
