/**
 * `npx tsx bench/agent-runtime.ts [--scenario=step|plan] [--runs=N] [--warmup=N] [--storages=N]`: CPU and
 * wall time the agent runtime alone spends per run, in process: the runner built as the
 * server builds it (createAgentRunner over the model registry, offline model), with the
 * in-memory stores instead of the database ones, and a sink that only counts.
 *   step — a sub-agent's plan step, as the executor launches one (default tools + finish):
 *          one model call and the finish tool
 *   plan — a commander chat message that the offline commander answers with create_plan
 * Runs go one after another (a step's hop is serial), after a warm-up for the JIT.
 *   --storages=N puts N AsyncLocalStorages in use first, as the server has them once it
 *          has answered requests (Next's, React's and better-auth's: seven); on Node 20
 *          every promise then pays their hooks, which this process alone would not.
 * Figures, not assertions. To see where the time goes:
 *   npx node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/agent-runtime.ts (npx: the Node npm install brought)
 */
import "./quiet-logs.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import {
  MemoryArtifactStore,
  MemoryConversationMemory,
  MemoryPlanStatusReader,
  MemorySessionStore,
} from "../server/agents/memory-stores.ts";
import { createModelRegistry } from "../server/agents/model-registry.ts";
import { createAgentRunner } from "../server/agents/run-agent.ts";
import { corePlanValidator } from "../server/agents/core-plan-validator.ts";
import type { AgentProfile, RunRequest, RunSink } from "../server/executor/ports.ts";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = ""] = arg.replace(/^--/, "").split("=");
    return [key, value] as const;
  }),
);
const scenario = args.get("scenario") || "step";
const runs = Number(args.get("runs") || 2_000);
const warmup = Number(args.get("warmup") || 300);
const storages = Array.from({ length: Number(args.get("storages") || 0) }, () => new AsyncLocalStorage<object>());
// a storage's hooks are on from its first run until it is disabled, as in the server
for (const storage of storages) storage.run({}, () => undefined);

const researcher: AgentProfile = {
  id: "agent-researcher",
  handle: "researcher",
  name: "Researcher",
  role: "sub_agent",
  systemPrompt: "You research things carefully and report what you found, with sources.",
  model: "offline",
  allowedTools: [],
  skills: [],
  concurrency: 4,
  mcpServers: [],
};
const commander: AgentProfile = {
  ...researcher,
  id: "agent-commander",
  handle: "commander",
  name: "Commander",
  role: "commander",
  systemPrompt: "You lead the team: plan the work and put the findings together.",
};
const roster: RunRequest["roster"] = [
  { handle: "commander", name: "Commander", role: "commander" },
  { handle: "researcher", name: "Researcher", role: "sub_agent" },
  { handle: "writer", name: "Writer", role: "sub_agent" },
];
const original = "Compare alpha, beta and gamma for our team: cost, maturity and how hard each is to run.";

let counter = 0;
function request(): RunRequest {
  counter += 1;
  const signal = new AbortController().signal;
  if (scenario === "plan") {
    return {
      runId: `run-${counter}`,
      conversationId: "conv-1",
      agent: commander,
      purpose: { kind: "commander-chat" },
      input: original,
      request: { text: original, attachments: [] },
      roster,
      triggerMessageId: `message-${counter}`,
      signal,
    };
  }
  // a step as the executor renders it (the offline commander's plan: `Cover "<item>" …`)
  return {
    runId: `run-${counter}`,
    conversationId: "conv-1",
    agent: researcher,
    purpose: { kind: "mention" },
    input: `Cover "alpha" for this request:\n${original}`,
    request: { text: original, attachments: [] },
    step: { planId: "plan-1", stepIndex: 1 + (counter % 3), title: "Research alpha" },
    roster,
    triggerMessageId: `message-${counter}`,
    signal,
  };
}

let deltas = 0;
let logs = 0;
const sink: RunSink = {
  textDelta: () => void (deltas += 1),
  log: () => void (logs += 1),
  status: () => undefined,
  resetText: () => undefined,
};

const runner = createAgentRunner({
  models: createModelRegistry({ env: {} }),
  artifacts: new MemoryArtifactStore(),
  sessions: new MemorySessionStore(),
  // as the server wires it: a chat run reads the conversation, the commander gets plan_status
  memory: new MemoryConversationMemory(),
  plans: new MemoryPlanStatusReader(),
  // the defaults of server/config (BATON_MAX_PLAN_STEPS and its neighbours)
  validatePlan: corePlanValidator({ maxSteps: 200, maxInputChars: 20_000, defaultMaxParallel: 4, defaultMaxRetries: 3 }),
});

async function once(): Promise<void> {
  const result = await runner.run(request(), sink);
  if (result.kind !== "ok") throw new Error(`a ${scenario} run ended ${result.kind}: ${JSON.stringify(result)}`);
}

for (let i = 0; i < warmup; i++) await once();
deltas = 0;
logs = 0;
const cpu = process.cpuUsage();
const wall = process.hrtime.bigint();
for (let i = 0; i < runs; i++) await once();
const wallUs = Number(process.hrtime.bigint() - wall) / 1_000;
const used = process.cpuUsage(cpu);

const perRun = (us: number) => (us / runs).toFixed(0).padStart(5);
console.log(
  `agent runtime, ${scenario} run (${runs} runs after ${warmup} warm-up, ${storages.length} AsyncLocalStorages in use): ` +
    `CPU ${perRun(used.user + used.system)} µs/run (user ${perRun(used.user)}, system ${perRun(used.system)}), ` +
    `wall ${perRun(wallUs)} µs/run; ${(deltas / runs).toFixed(1)} deltas and ${(logs / runs).toFixed(1)} log lines a run`,
);
