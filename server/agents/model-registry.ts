/**
 * Model registry: turns an agent's model id into an AI SDK language model, and
 * knows what that model costs and how much context it can take.
 *
 * Model ids: `anthropic:<model>`, `openai:<model>`, `local:<model>` (any
 * OpenAI-compatible server: Ollama, vLLM, LM Studio, OpenRouter) and `offline`.
 * Configuration is passed in explicitly (server/index.ts reads the environment)
 * so tests can point a provider at a loopback server without touching
 * process.env, and a missing key fails with the variable's name.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createOfflineModel } from "./offline-model.ts";

export const OFFLINE_MODEL_ID = "offline";

/** The environment variables the registry understands, by their conventional names. */
export interface ModelEnvironment {
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  LOCAL_MODEL_BASE_URL?: string;
  LOCAL_MODEL_API_KEY?: string;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export interface ModelRegistryConfig {
  env: ModelEnvironment;
  /** overrides and additions to DEFAULT_PRICES, keyed by full model id (`openai:gpt-4o`) */
  prices?: Record<string, ModelPrice>;
  /** context budget in estimated tokens, keyed by full model id; compaction starts past it */
  contextBudgets?: Record<string, number>;
  /** the offline model instance (tests may inject one with their own clock) */
  offlineModel?: LanguageModelV3;
  /** fetch used by the HTTP providers (tests, proxies) */
  fetch?: typeof globalThis.fetch;
}

export interface ModelRegistry {
  /** @throws ModelConfigurationError naming the missing variable or the bad id */
  resolve(modelId: string): LanguageModelV3;
  price(modelId: string): ModelPrice;
  cost(modelId: string, usage: { tokensIn: number; tokensOut: number }): number;
  contextBudget(modelId: string): number;
  /** true for models whose failures are simulated for the executor, not healed in the run */
  isSimulated(modelId: string): boolean;
}

export type ModelConfigurationErrorCode = "unknown-provider" | "missing-configuration" | "empty-model-name";

export class ModelConfigurationError extends Error {
  readonly code: ModelConfigurationErrorCode;
  constructor(code: ModelConfigurationErrorCode, message: string) {
    super(message);
    this.name = "ModelConfigurationError";
    this.code = code;
  }
}

/** Published list prices at the time of writing; a deployment overrides them in config. */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  "anthropic:claude-opus-4-1": { inputPerMillion: 15, outputPerMillion: 75 },
  "anthropic:claude-sonnet-4-5": { inputPerMillion: 3, outputPerMillion: 15 },
  "anthropic:claude-haiku-4-5": { inputPerMillion: 1, outputPerMillion: 5 },
  "openai:gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "openai:gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "openai:gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8 },
  "openai:gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  [OFFLINE_MODEL_ID]: { inputPerMillion: 0, outputPerMillion: 0 },
};

/** Conservative defaults; real windows are larger, compaction early is cheap. */
export const DEFAULT_CONTEXT_BUDGET = 100_000;
const PROVIDER_CONTEXT_BUDGETS: Record<string, number> = {
  anthropic: 150_000,
  openai: 100_000,
  local: 8_000,
  offline: 1_000_000,
};

const ZERO_PRICE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 };

type Provider = "anthropic" | "openai" | "local" | "offline";

/** Splits `provider:model`; the model part may itself contain colons (`local:llama3:8b`). */
export function parseModelId(modelId: string): { provider: Provider; model: string } {
  if (modelId === OFFLINE_MODEL_ID) return { provider: "offline", model: OFFLINE_MODEL_ID };
  const colon = modelId.indexOf(":");
  const provider = colon < 0 ? modelId : modelId.slice(0, colon);
  const model = colon < 0 ? "" : modelId.slice(colon + 1);
  if (provider !== "anthropic" && provider !== "openai" && provider !== "local") {
    throw new ModelConfigurationError(
      "unknown-provider",
      `Unknown model id "${modelId}": use anthropic:<model>, openai:<model>, local:<model> or offline`,
    );
  }
  if (model.trim() === "") {
    throw new ModelConfigurationError("empty-model-name", `Model id "${modelId}" has no model name after "${provider}:"`);
  }
  return { provider, model };
}

function required(env: ModelEnvironment, name: keyof ModelEnvironment, modelId: string): string {
  const value = env[name];
  if (value == null || value.trim() === "") {
    throw new ModelConfigurationError("missing-configuration", `Model "${modelId}" needs ${name} to be set in the environment`);
  }
  return value;
}

export function createModelRegistry(config: ModelRegistryConfig): ModelRegistry {
  const prices = { ...DEFAULT_PRICES, ...config.prices };
  const offline = config.offlineModel ?? createOfflineModel();
  // Providers are created lazily so a missing key only matters to agents that use it.
  const cache = new Map<string, LanguageModelV3>();

  function build(modelId: string): LanguageModelV3 {
    const { provider, model } = parseModelId(modelId);
    const { env } = config;
    switch (provider) {
      case "offline":
        return offline;
      case "anthropic":
        return createAnthropic({
          apiKey: required(env, "ANTHROPIC_API_KEY", modelId),
          baseURL: env.ANTHROPIC_BASE_URL || undefined,
          fetch: config.fetch,
        }).languageModel(model);
      case "openai":
        // Chat Completions rather than Responses: it is what OPENAI_BASE_URL
        // proxies and gateways speak, and the wire format our tests replay.
        return createOpenAI({
          apiKey: required(env, "OPENAI_API_KEY", modelId),
          baseURL: env.OPENAI_BASE_URL || undefined,
          fetch: config.fetch,
        }).chat(model);
      case "local":
        return createOpenAICompatible({
          name: "local",
          baseURL: required(env, "LOCAL_MODEL_BASE_URL", modelId),
          apiKey: env.LOCAL_MODEL_API_KEY || undefined,
          includeUsage: true,
          fetch: config.fetch,
        }).chatModel(model);
    }
  }

  function price(modelId: string): ModelPrice {
    // Unknown models (and local servers, which run on the deployment's own
    // hardware) cost 0 rather than failing a run over bookkeeping.
    return prices[modelId] ?? ZERO_PRICE;
  }

  return {
    resolve(modelId) {
      let model = cache.get(modelId);
      if (!model) {
        model = build(modelId);
        cache.set(modelId, model);
      }
      return model;
    },
    price,
    cost(modelId, usage) {
      const p = price(modelId);
      return (usage.tokensIn * p.inputPerMillion + usage.tokensOut * p.outputPerMillion) / 1_000_000;
    },
    contextBudget(modelId) {
      const configured = config.contextBudgets?.[modelId];
      if (configured != null) return configured;
      try {
        return PROVIDER_CONTEXT_BUDGETS[parseModelId(modelId).provider] ?? DEFAULT_CONTEXT_BUDGET;
      } catch {
        return DEFAULT_CONTEXT_BUDGET;
      }
    },
    isSimulated(modelId) {
      return modelId === OFFLINE_MODEL_ID;
    },
  };
}
