import { describe, expect, it } from "vitest";
import { createModelRegistry, ModelConfigurationError, parseModelId } from "./model-registry.ts";

describe("model registry", () => {
  it("parses model ids, model names with colons included", () => {
    expect(parseModelId("local:llama3:8b")).toEqual({ provider: "local", model: "llama3:8b" });
    expect(parseModelId("offline")).toEqual({ provider: "offline", model: "offline" });
    expect(() => parseModelId("gemini:pro")).toThrow(/Unknown model id/);
    expect(() => parseModelId("openai:")).toThrow(/no model name/);
  });

  it.each([
    ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"],
    ["openai:gpt-4o", "OPENAI_API_KEY"],
    ["local:llama3", "LOCAL_MODEL_BASE_URL"],
  ])("names the missing variable for %s", (id, variable) => {
    const registry = createModelRegistry({ env: {} });
    const error = (() => {
      try {
        registry.resolve(id);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ModelConfigurationError);
    expect((error as ModelConfigurationError).code).toBe("missing-configuration");
    expect((error as Error).message).toContain(variable);
  });

  it("resolves configured providers and the offline model", () => {
    const registry = createModelRegistry({
      env: { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", LOCAL_MODEL_BASE_URL: "http://127.0.0.1:11434/v1" },
    });
    expect(registry.resolve("anthropic:claude-haiku-4-5")).toMatchObject({ provider: "anthropic.messages", modelId: "claude-haiku-4-5" });
    expect(registry.resolve("openai:gpt-4o")).toMatchObject({ provider: "openai.chat", modelId: "gpt-4o" });
    expect(registry.resolve("local:llama3")).toMatchObject({ modelId: "llama3" });
    expect(registry.resolve("offline").provider).toBe("offline");
    expect(registry.resolve("offline")).toBe(registry.resolve("offline"));
  });

  it("prices tokens from the table, configurable, 0 for offline, local and unknown models", () => {
    const registry = createModelRegistry({ env: {}, prices: { "openai:gpt-4o": { inputPerMillion: 10, outputPerMillion: 20 } } });
    expect(registry.cost("openai:gpt-4o", { tokensIn: 1_000_000, tokensOut: 500_000 })).toBe(20);
    expect(registry.cost("anthropic:claude-sonnet-4-5", { tokensIn: 1_000_000, tokensOut: 1_000_000 })).toBe(18);
    expect(registry.cost("offline", { tokensIn: 5_000, tokensOut: 5_000 })).toBe(0);
    expect(registry.cost("local:llama3", { tokensIn: 5_000, tokensOut: 5_000 })).toBe(0);
  });

  it("takes offline:<name> as an alias of the offline model, simulated and free", () => {
    const registry = createModelRegistry({ env: {} });
    expect(parseModelId("offline:deep")).toEqual({ provider: "offline", model: "deep" });
    expect(registry.resolve("offline:deep")).toBe(registry.resolve("offline"));
    expect(registry.isSimulated("offline:deep")).toBe(true);
    expect(registry.isSimulated("openai:gpt-4o")).toBe(false);
    expect(registry.cost("offline:deep", { tokensIn: 5_000, tokensOut: 5_000 })).toBe(0);
    expect(() => parseModelId("offline:")).toThrow(/Unknown model id/);
  });

  it("has a context budget per model, configurable", () => {
    const registry = createModelRegistry({ env: {}, contextBudgets: { "openai:tiny": 500 } });
    expect(registry.contextBudget("openai:tiny")).toBe(500);
    expect(registry.contextBudget("anthropic:x")).toBeGreaterThan(10_000);
  });
});
