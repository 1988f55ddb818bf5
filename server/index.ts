/**
 * Baton's server: Next.js pages and routes, Socket.IO and the executor on one port.
 * This is where concrete adapters are chosen (database, models, publisher); the parts
 * without the pages are in serve.ts.
 */
import next from "next";
import { ConfigError, loadConfig } from "./config/config.ts";
import { closeOnSignals, serveBaton } from "./serve.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "./adapters/prisma/agent-stores.ts";
import { createAgentRunner } from "./agents/run-agent.ts";
import { createPrismaPlanStatusReader } from "./adapters/prisma/plan-status-reader.ts";
import { ProviderCircuits } from "./agents/circuit-breaker.ts";
import { createModelRegistry } from "./agents/model-registry.ts";
import { corePlanValidator } from "./agents/core-plan-validator.ts";
import { log } from "./observability/log.ts";
import { createWorkspaceRuntime } from "./workspace/workspace-runner.ts";
import { readWorkspaceSettings } from "./workspace/settings.ts";
import { readCliAgents } from "./workspace/cli-agent.ts";
import { routeConsoleToLog } from "./observability/console-log.ts";
import { defaultSandbox, sandboxStartupMessage, UNSANDBOXED_VARIABLE } from "./workspace/sandbox.ts";

// Node 24 keeps async context without promise hooks; before it every promise pays the
// hooks of the AsyncLocalStorages Next, React and better-auth use, and a step costs a
// fifth to a half more CPU. Baton runs on what package.json's engines allow; the operator
// chooses the Node, and this says what the older one costs.
const NODE_WITHOUT_PROMISE_HOOKS = 24;

async function main() {
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  if (nodeMajor < NODE_WITHOUT_PROMISE_HOOKS) {
    log.warn(
      `running on Node ${process.version}: Baton works on it, but on Node ${NODE_WITHOUT_PROMISE_HOOKS} or later each step costs noticeably less CPU`,
    );
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      log.fatal(error.message);
      process.exit(1);
    }
    throw error;
  }

  const models = createModelRegistry({ env: config.env });
  // `cli:<name>` agents: command-line coding agents run in a step's slot (BATON_CLI_AGENTS)
  const cliAgents = readCliAgents(process.env);
  // Next.js writes with console.*: its lines join Baton's one JSON log stream
  routeConsoleToLog();
  // agents' commands run only in the sandbox: say once at start-up when they cannot
  void defaultSandbox()
    .status()
    .then((status) => {
      const message = sandboxStartupMessage(status);
      if (message) log.warn(message);
      else if (process.env[UNSANDBOXED_VARIABLE] === "1")
        log.warn(`${UNSANDBOXED_VARIABLE}=1 is set; the sandbox works, so commands still run in it`);
      else log.info("command sandbox ready (bubblewrap)");
    });
  const app = next({ dev: config.dev, hostname: config.host, port: config.port });
  // one set of breakers per process: every run of this process shares what it learns about a provider
  const circuits = new ProviderCircuits();
  // the workspace runtime's retention timer (worktrees of ended plans), stopped before the database closes
  let stopSlotRetention = () => {};
  const served = await serveBaton({
    config,
    circuits,
    createRunner: (db) => {
      const artifacts = createPrismaArtifactStore(db.prisma);
      // workspace: steps of agents with the `workspace` capability run in a git slot (server/workspace)
      const workspace = createWorkspaceRuntime({ prisma: db.prisma, artifacts, settings: readWorkspaceSettings(process.env), cliAgents });
      workspace.retention.start();
      stopSlotRetention = () => workspace.retention.stop();
      return workspace.wrap(
        createAgentRunner({
          models,
          circuits,
          artifacts,
          sessions: createPrismaSessionStore(db.prisma),
          memory: createPrismaConversationMemory(db.prisma),
          plans: createPrismaPlanStatusReader(db.prisma),
          validatePlan: corePlanValidator(config.planLimits),
          extraTools: workspace.toolsFor,
        }),
      );
    },
    // a worker (BATON_ROLE=worker) runs agents and answers only the probes
    pages:
      config.role === "worker"
        ? undefined
        : async () => {
            await app.prepare();
            const handle = app.getRequestHandler();
            return (request, response) => void handle(request, response);
          },
  });
  const where = served.core.db.kind === "embedded" ? `embedded database in ${config.dataDir}` : "PostgreSQL";
  const what = config.role === "worker" ? `Baton worker (${config.workerSlots} slots) is ready, probes` : "Baton is ready";
  log.info(
    { port: served.port, database: served.core.db.kind, role: config.role, node: process.version },
    `${what} on http://localhost:${served.port} (${where}, default model ${config.defaultModel})`,
  );

  const closeServed = () => {
    stopSlotRetention();
    return served.close();
  };
  closeOnSignals({ ...served, close: closeServed }, async () => {
    await app.close?.();
  });
}

main().catch((error) => {
  log.fatal({ err: error }, "Baton failed to start");
  process.exit(1);
});
