/** The process's model registry and command-line agents, built from its configuration, for admin checks of model ids. */
import { createModelRegistry, type ModelRegistry } from "./agents/model-registry.ts";
import { readCliAgents, type CliAgents } from "./workspace/cli-agent.ts";
import { getRuntime } from "./runtime.ts";

let cached: { env: object; models: ModelRegistry } | undefined;
let cliAgents: CliAgents | undefined;

export function workspaceModels(): ModelRegistry {
  const { env } = getRuntime().config;
  if (cached?.env !== env) cached = { env, models: createModelRegistry({ env }) };
  return cached.models;
}

/** The `cli:<name>` agents BATON_CLI_AGENTS configures, read from the environment as the server reads them at start. */
export function workspaceCliAgents(): CliAgents {
  cliAgents ??= readCliAgents(process.env);
  return cliAgents;
}

/** The model ids an admin is offered for an agent: the offline model and every configured `cli:` agent. */
export function modelChoices(cliAgents: CliAgents): string[] {
  return ["offline", ...Object.keys(cliAgents).map((name) => `cli:${name}`)];
}
