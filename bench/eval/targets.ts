/**
 * What the harness talks to: the fake provider servers (both wire formats, answering as
 * the offline model, prompt caching on or off), or a real provider when its key is set.
 */
import type { FakeModelServer, WireFormat } from "../../server/agents/testing/fake-model-server.ts";
import { offlineResponder } from "../../server/agents/testing/fake-responder.ts";
import type { EvalTarget } from "./harness.ts";

/** Priced models on each fake: the list prices of real models, reached through the fake's base URL. */
export const FAKE_MODELS: Record<WireFormat, string> = {
  anthropic: "anthropic:claude-sonnet-4-5",
  openai: "openai:gpt-4.1-mini",
};

/**
 * A fake provider answering as the offline model. `cache: false`: the fake reports no
 * cached tokens at all (as a provider with caching off would), so every input token is
 * billed at the plain input price; the requests sent are the same either way.
 */
export function fakeTarget(server: FakeModelServer, format: WireFormat, cache: boolean): EvalTarget {
  server.reset();
  server.respond(offlineResponder({ cache }));
  return {
    label: `fake ${format} (${FAKE_MODELS[format]}), caching ${cache ? "on" : "off"}`,
    modelId: FAKE_MODELS[format],
    env: { OPENAI_API_KEY: "sk-fake", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-fake", ANTHROPIC_BASE_URL: server.baseURL },
    offline: true,
    countCalls: () => server.requests.length,
  };
}

/** BATON_EVAL_MODEL names a model of another provider than the one whose key is set. */
export class EvalConfigurationError extends Error {
  readonly code = "eval-model-provider-mismatch";
  constructor(message: string) {
    super(message);
    this.name = "EvalConfigurationError";
  }
}

/**
 * The real provider whose key is set (Anthropic first), model from BATON_EVAL_MODEL or
 * the provider's default; null without a key. Calls are counted by wrapping fetch, the
 * only way to see them from outside the SDK.
 */
export function realTarget(env: NodeJS.ProcessEnv): EvalTarget | null {
  const provider = env.ANTHROPIC_API_KEY ? "anthropic" : env.OPENAI_API_KEY ? "openai" : null;
  if (!provider) return null;
  const modelId = env.BATON_EVAL_MODEL || FAKE_MODELS[provider];
  if (!modelId.startsWith(`${provider}:`)) {
    throw new EvalConfigurationError(`BATON_EVAL_MODEL="${modelId}" must be an ${provider}:<model> id (the provider whose key is set)`);
  }
  let calls = 0;
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (/\/(messages|chat\/completions)$/.test(url)) calls += 1;
    return original(input, init);
  };
  return { label: `${modelId} (real provider)`, modelId, env: { ...env }, offline: false, countCalls: () => calls };
}
