/**
 * One builder for the agent-runtime tests: a runner with in-memory stores,
 * instant retry delays, and a sink that records what the conversation would see.
 */
import type { AgentProfile, RunRequest, RunSink } from "../../executor/ports.ts";
import { MemoryArtifactStore, MemorySessionStore } from "../memory-stores.ts";
import { createModelRegistry, type ModelEnvironment, type ModelRegistryConfig } from "../model-registry.ts";
import { createAgentRunner, type AgentRunnerDeps } from "../run-agent.ts";

export function agentProfile(overrides: Partial<AgentProfile> = {}): AgentProfile {
  return {
    id: overrides.handle ?? "agent-1",
    handle: "researcher",
    name: "Researcher",
    role: "sub_agent",
    systemPrompt: "You research things carefully.",
    model: "offline",
    allowedTools: [],
    skills: [],
    concurrency: 2,
    mcpServers: [],
    ...overrides,
  };
}

export const commanderProfile = (overrides: Partial<AgentProfile> = {}) =>
  agentProfile({ id: "commander", handle: "commander", name: "Commander", role: "commander", systemPrompt: "You lead.", ...overrides });

export const ROSTER: RunRequest["roster"] = [
  { handle: "commander", name: "Commander", role: "commander" },
  { handle: "researcher", name: "Researcher", role: "sub_agent" },
  { handle: "writer", name: "Writer", role: "sub_agent" },
];

let runCounter = 0;

export function runRequest(overrides: Partial<RunRequest> = {}): RunRequest {
  const input = overrides.input ?? "Say hello";
  return {
    runId: `run-${++runCounter}`,
    conversationId: "conv-1",
    agent: agentProfile(),
    purpose: { kind: "mention" },
    input,
    request: { text: input, attachments: [] },
    roster: ROSTER,
    signal: new AbortController().signal,
    ...overrides,
  };
}

export interface RecordingSink extends RunSink {
  deltas: string[];
  logs: { phase: string; message: string; data?: unknown }[];
  /** the live status lines, in order (null = cleared) */
  statuses: (string | null)[];
  /** the texts the live view was reset to (a retried model call), in order */
  resets: string[];
  text(): string;
  /** what a live view shows: the deltas, each reset replacing what came before */
  live(): string;
  phases(): string[];
}

export function recordingSink(): RecordingSink {
  const deltas: string[] = [];
  const logs: RecordingSink["logs"] = [];
  const statuses: (string | null)[] = [];
  const resets: string[] = [];
  let live = "";
  return {
    deltas,
    logs,
    statuses,
    resets,
    status: (text) => statuses.push(text),
    textDelta: (delta) => {
      deltas.push(delta);
      live += delta;
    },
    resetText: (text) => {
      resets.push(text);
      live = text;
    },
    live: () => live,
    log: (entry) => logs.push(entry),
    text: () => deltas.join(""),
    phases: () => logs.map((entry) => entry.phase),
  };
}

export interface TestRuntime {
  runner: ReturnType<typeof createAgentRunner>;
  sessions: MemorySessionStore;
  artifacts: MemoryArtifactStore;
  sleeps: number[];
}

/** A runner wired with fakes; `env` points real providers at a loopback server. */
export function testRuntime(
  options: { env?: ModelEnvironment; registry?: Partial<ModelRegistryConfig>; deps?: Partial<AgentRunnerDeps> } = {},
): TestRuntime {
  const sessions = new MemorySessionStore();
  const artifacts = new MemoryArtifactStore();
  const sleeps: number[] = [];
  const models = createModelRegistry({ env: options.env ?? {}, ...options.registry });
  const runner = createAgentRunner({
    models,
    sessions,
    artifacts,
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
    },
    deltaBatching: { intervalMs: 5, maxChars: 200 },
    ...options.deps,
  });
  return { runner, sessions, artifacts, sleeps };
}
