import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { createModelRegistry, DEFAULT_PRICES, ModelConfigurationError } from "./model-registry.ts";
import { explainModelError } from "./retry.ts";
import { PROVIDER_NAMES, PROVIDERS, type ProviderEntry } from "../config/providers.ts";

describe("the provider registry is the one list of providers", () => {
  it.each(PROVIDER_NAMES)("%s: a model resolves once its required variables are set, and not before", (name) => {
    const entry: ProviderEntry = PROVIDERS[name];
    const required = entry.env.filter((variable) => variable.required);
    expect(required.length).toBeGreaterThan(0);
    const env = Object.fromEntries(required.map((variable) => [variable.name, variable.url ? "http://127.0.0.1:9/v1" : "k"]));
    expect(createModelRegistry({ env }).resolve(`${name}:some-model`)).toBeDefined();
    for (const missing of required) {
      const without = { ...env, [missing.name]: undefined };
      expect(() => createModelRegistry({ env: without }).resolve(`${name}:some-model`)).toThrow(
        new ModelConfigurationError(
          "missing-configuration",
          `Model "${name}:some-model" needs ${missing.name} to be set in the environment`,
        ),
      );
    }
  });

  it("an unknown prefix names every provider's form", () => {
    const forms = PROVIDER_NAMES.map((name) => `${name}:<model>`).join(", ");
    expect(() => createModelRegistry({ env: {} }).resolve("gemini:pro")).toThrow(`use ${forms}, offline or offline:<name>`);
  });

  it("the config validates each provider's URL variables as URLs and picks a default model from the first key set", () => {
    for (const name of PROVIDER_NAMES) {
      const entry: ProviderEntry = PROVIDERS[name];
      for (const variable of entry.env.filter((v) => v.url)) {
        expect(() => loadConfig({ [variable.name]: "not a url" })).toThrow(variable.name);
      }
    }
    const first = PROVIDER_NAMES.map((name): ProviderEntry => PROVIDERS[name]).find((entry) => entry.defaultModel !== undefined);
    expect(first?.defaultModel).toBeDefined();
    expect(loadConfig({ [first!.keyVariable]: "k" }).defaultModel).toBe(first!.defaultModel);
    expect(loadConfig({}).defaultModel).toBe("offline");
  });

  it("prices are keyed by full model id", () => {
    for (const name of PROVIDER_NAMES) {
      for (const model of Object.keys(PROVIDERS[name].prices)) expect(DEFAULT_PRICES[`${name}:${model}`]).toBeDefined();
    }
  });

  it("a refused key's hint names the provider's key variable", async () => {
    const { APICallError } = await import("ai");
    for (const name of PROVIDER_NAMES) {
      const error = new APICallError({ message: "no", url: "http://x", requestBodyValues: {}, statusCode: 401, responseBody: "{}" });
      expect(explainModelError(error, `${name}:m`)).toContain(`check ${PROVIDERS[name].keyVariable}`);
    }
  });
});

describe("the README's model table", () => {
  it("lists every provider's variables", async () => {
    const { readFile } = await import("node:fs/promises");
    const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
    for (const name of PROVIDER_NAMES) {
      for (const variable of PROVIDERS[name].env) expect(readme).toContain(`\`${variable.name}\``);
      expect(readme).toContain(`\`${name}:*\``);
    }
  });
});
