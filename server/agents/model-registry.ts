/**
 * Model registry: turns an agent's model id into an AI SDK language model, and
 * knows what that model costs and how much context it can take.
 *
 * Model ids: `<provider>:<model>` for each provider in providers.ts (anthropic,
 * openai, local: any OpenAI-compatible server) and `offline`.
 * Configuration is passed in explicitly (server/index.ts reads the environment)
 * so tests can point a provider at a loopback server without touching
 * process.env, and a missing key fails with the variable's name.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createOfflineModel } from "./offline-model.ts";
import { isProviderName, PROVIDER_NAMES, PROVIDERS, type ProviderEntry, type ProviderName } from "../config/providers.ts";

export const OFFLINE_MODEL_ID = "offline";
/**
 * `offline:<name>`: the offline model under another name, so an effort level or an
 * escalation can be mapped to a "different" model without keys (tests, demos).
 */
const OFFLINE_ALIAS = /^offline:([A-Za-z0-9_.-]{1,60})$/;

/** The offline model, by its own id or an `offline:<name>` alias. */
export function isOfflineModelId(modelId: string): boolean {
  return modelId === OFFLINE_MODEL_ID || OFFLINE_ALIAS.test(modelId);
}

/** The environment variables the providers read (config/providers.ts), by their conventional names. */
export type ModelEnvironment = Readonly<Record<string, unknown>>;

/** US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** input read from the provider's prompt cache; unset: the input price */
  cacheReadPerMillion?: number;
  /** input written to the provider's prompt cache; unset: the input price */
  cacheWritePerMillion?: number;
}

/** What a run used, as the provider reported it: cache reads and writes are part of tokensIn. */
export interface TokenUsage {
  tokensIn: number;
  tokensOut: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** The price of a run's tokens: each kind of input at its own rate. */
export function priceUsage(price: ModelPrice, usage: TokenUsage): number {
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.tokensIn - read - written);
  return (
    (plain * price.inputPerMillion +
      read * (price.cacheReadPerMillion ?? price.inputPerMillion) +
      written * (price.cacheWritePerMillion ?? price.inputPerMillion) +
      usage.tokensOut * price.outputPerMillion) /
    1_000_000
  );
}

export interface ModelRegistryConfig {
  env: ModelEnvironment;
  /** overrides and additions to DEFAULT_PRICES, keyed by full model id (`openai:gpt-4o`) */
  prices?: Record<string, ModelPrice>;
  /** context budget in estimated tokens, keyed by full model id; compaction starts past it */
  contextBudgets?: Record<string, number>;
}

export interface ModelRegistry {
  /** @throws ModelConfigurationError naming the missing variable or the bad id */
  resolve(modelId: string): LanguageModelV3;
  price(modelId: string): ModelPrice;
  cost(modelId: string, usage: TokenUsage): number;
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

/** Published list prices at the time of writing (config/providers.ts); a deployment overrides them in config. */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  ...Object.fromEntries(
    PROVIDER_NAMES.flatMap((provider) =>
      Object.entries(PROVIDERS[provider].prices as ProviderEntry["prices"]).map(([model, price]) => [`${provider}:${model}`, price]),
    ),
  ),
  [OFFLINE_MODEL_ID]: { inputPerMillion: 0, outputPerMillion: 0 },
};

/** Conservative defaults; real windows are larger, compaction early is cheap. */
export const DEFAULT_CONTEXT_BUDGET = 100_000;
const OFFLINE_CONTEXT_BUDGET = 1_000_000;

const ZERO_PRICE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 };

type Provider = ProviderName | "offline";

/** Splits `provider:model`; the model part may itself contain colons (`local:llama3:8b`). */
export function parseModelId(modelId: string): { provider: Provider; model: string } {
  if (modelId === OFFLINE_MODEL_ID) return { provider: "offline", model: OFFLINE_MODEL_ID };
  const alias = OFFLINE_ALIAS.exec(modelId);
  if (alias) return { provider: "offline", model: alias[1] };
  const colon = modelId.indexOf(":");
  const provider = colon < 0 ? modelId : modelId.slice(0, colon);
  const model = colon < 0 ? "" : modelId.slice(colon + 1);
  if (!isProviderName(provider)) {
    const forms = PROVIDER_NAMES.map((name) => `${name}:<model>`).join(", ");
    throw new ModelConfigurationError("unknown-provider", `Unknown model id "${modelId}": use ${forms}, offline or offline:<name>`);
  }
  if (model.trim() === "") {
    throw new ModelConfigurationError("empty-model-name", `Model id "${modelId}" has no model name after "${provider}:"`);
  }
  return { provider, model };
}

/** The provider's variables, each required one present, else the error naming it. */
function providerVars(env: ModelEnvironment, provider: ProviderName, modelId: string): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = {};
  for (const variable of PROVIDERS[provider].env as ProviderEntry["env"]) {
    const raw = env[variable.name];
    const value = typeof raw === "string" ? raw : undefined;
    if (variable.required && (value === undefined || value.trim() === "")) {
      throw new ModelConfigurationError("missing-configuration", `Model "${modelId}" needs ${variable.name} to be set in the environment`);
    }
    vars[variable.name] = value;
  }
  return vars;
}

export function createModelRegistry(config: ModelRegistryConfig): ModelRegistry {
  const prices = { ...DEFAULT_PRICES, ...config.prices };
  const offline = createOfflineModel();
  // Providers are created lazily so a missing key only matters to agents that use it.
  const cache = new Map<string, LanguageModelV3>();

  function build(modelId: string): LanguageModelV3 {
    const { provider, model } = parseModelId(modelId);
    if (provider === "offline") return offline;
    const entry: ProviderEntry = PROVIDERS[provider];
    return entry.create({ vars: providerVars(config.env, provider, modelId) })(model);
  }

  function price(modelId: string): ModelPrice {
    // Unknown models (and local servers, which run on the deployment's own
    // hardware) cost 0 rather than failing a run over bookkeeping.
    return prices[modelId] ?? (isOfflineModelId(modelId) ? prices[OFFLINE_MODEL_ID] : undefined) ?? ZERO_PRICE;
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
    cost: (modelId, usage) => priceUsage(price(modelId), usage),
    contextBudget(modelId) {
      const configured = config.contextBudgets?.[modelId];
      if (configured != null) return configured;
      try {
        const { provider } = parseModelId(modelId);
        return provider === "offline" ? OFFLINE_CONTEXT_BUDGET : PROVIDERS[provider].contextBudget;
      } catch {
        return DEFAULT_CONTEXT_BUDGET;
      }
    },
    isSimulated(modelId) {
      return isOfflineModelId(modelId);
    },
  };
}
