/** The process's model registry, built from its configuration, for admin checks of model ids. */
import { createModelRegistry, type ModelRegistry } from "../agents/model-registry.ts";
import { getRuntime } from "../runtime.ts";

let cached: { env: object; models: ModelRegistry } | undefined;

export function workspaceModels(): ModelRegistry {
  const { env } = getRuntime().config;
  if (cached?.env !== env) cached = { env, models: createModelRegistry({ env }) };
  return cached.models;
}
