/**
 * The model providers, one entry each: adding a provider is one entry here. Shaped
 * like the AI SDK's `createProviderRegistry` (providers keyed by the prefix of a
 * `provider:model` id, ":" as the separator), but each entry also says which
 * environment variables it reads — so a missing key fails at once naming the
 * variable, the config schema and the docs list them, and a refused key's hint names
 * it — and builds its SDK provider only when an agent first uses it.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";

/**
 * What an entry's factory gets: its variables' values (required ones are present).
 * Tests reach a fake provider through its base-URL variable, never through an option
 * production could pass by mistake.
 */
export interface ProviderSettings {
  vars: Record<string, string | undefined>;
}

export interface ProviderEntry {
  /** the variables this provider reads; `required` ones must be set before any of its models resolves */
  env: readonly { name: string; required: boolean; url?: boolean; example?: string }[];
  /** the variable a person fixes when the provider refuses the credentials (401/403) */
  keyVariable: string;
  /** the model used when this provider's key is set and BATON_DEFAULT_MODEL is not (first entry wins) */
  defaultModel?: string;
  /** context budget in estimated tokens for its models, unless configured per model */
  contextBudget: number;
  /** US dollars per million tokens, by model name (without the prefix) */
  prices: Record<
    string,
    { inputPerMillion: number; outputPerMillion: number; cacheReadPerMillion?: number; cacheWritePerMillion?: number }
  >;
  create(settings: ProviderSettings): (model: string) => LanguageModelV3;
}

const orUndefined = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);

export const PROVIDERS = {
  anthropic: {
    env: [
      { name: "ANTHROPIC_API_KEY", required: true },
      { name: "ANTHROPIC_BASE_URL", required: false, url: true },
    ],
    keyVariable: "ANTHROPIC_API_KEY",
    defaultModel: "anthropic:claude-sonnet-4-5",
    contextBudget: 150_000,
    prices: {
      // a cache read costs a tenth of the input price, a (five-minute) cache write a quarter more
      "claude-opus-4-1": { inputPerMillion: 15, outputPerMillion: 75, cacheReadPerMillion: 1.5, cacheWritePerMillion: 18.75 },
      "claude-sonnet-4-5": { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 },
      "claude-haiku-4-5": { inputPerMillion: 1, outputPerMillion: 5, cacheReadPerMillion: 0.1, cacheWritePerMillion: 1.25 },
    },
    create: ({ vars }) => {
      const provider = createAnthropic({ apiKey: vars.ANTHROPIC_API_KEY, baseURL: orUndefined(vars.ANTHROPIC_BASE_URL) });
      return (model) => provider.languageModel(model);
    },
  },
  openai: {
    env: [
      { name: "OPENAI_API_KEY", required: true },
      { name: "OPENAI_BASE_URL", required: false, url: true },
    ],
    keyVariable: "OPENAI_API_KEY",
    defaultModel: "openai:gpt-4.1-mini",
    contextBudget: 100_000,
    prices: {
      // cached input: half price for the 4o family, a quarter for 4.1; writing the cache costs nothing extra
      "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10, cacheReadPerMillion: 1.25 },
      "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cacheReadPerMillion: 0.075 },
      "gpt-4.1": { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 },
      "gpt-4.1-mini": { inputPerMillion: 0.4, outputPerMillion: 1.6, cacheReadPerMillion: 0.1 },
    },
    create: ({ vars }) => {
      // Chat Completions rather than Responses: it is what OPENAI_BASE_URL
      // proxies and gateways speak, and the wire format our tests replay.
      const provider = createOpenAI({ apiKey: vars.OPENAI_API_KEY, baseURL: orUndefined(vars.OPENAI_BASE_URL) });
      return (model) => provider.chat(model);
    },
  },
  /** any OpenAI-compatible server: Ollama, vLLM, LM Studio, OpenRouter */
  local: {
    env: [
      { name: "LOCAL_MODEL_BASE_URL", required: true, url: true, example: "http://127.0.0.1:11434/v1" },
      { name: "LOCAL_MODEL_API_KEY", required: false },
    ],
    keyVariable: "LOCAL_MODEL_API_KEY",
    contextBudget: 8_000,
    // local servers run on the deployment's own hardware: they cost 0
    prices: {},
    create: ({ vars }) => {
      const provider = createOpenAICompatible({
        name: "local",
        baseURL: vars.LOCAL_MODEL_BASE_URL ?? "",
        apiKey: orUndefined(vars.LOCAL_MODEL_API_KEY),
        includeUsage: true,
      });
      return (model) => provider.chatModel(model);
    },
  },
} as const satisfies Record<string, ProviderEntry>;

export type ProviderName = keyof typeof PROVIDERS;

export const PROVIDER_NAMES = Object.keys(PROVIDERS) as ProviderName[];

export function isProviderName(value: string): value is ProviderName {
  return Object.hasOwn(PROVIDERS, value);
}

/** Every variable any provider reads (the config schema validates them). */
export const PROVIDER_ENV = Object.values(PROVIDERS).flatMap((entry): ProviderEntry["env"][number][] => [...entry.env]);
