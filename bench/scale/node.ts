/**
 * One process of the scale benchmark: Baton's own server (serve.ts: the executor,
 * Socket.IO, the automation API and the probes, with the role BATON_ROLE gives it) on
 * the offline model through the real agent runtime, without the Next.js pages, which
 * the benchmark's clients never load (so it needs no `next build`). BATON_INSTANCE_ID, when
 * set, names it (the takeover benchmark finds a killed worker's runs by that name).
 */
import { loadConfig } from "../../server/config/config.ts";
import { closeOnSignals, serveBaton } from "../../server/serve.ts";
import { createAgentRunner } from "../../server/agents/run-agent.ts";
import { createModelRegistry } from "../../server/agents/model-registry.ts";
import { createPrismaArtifactStore, createPrismaSessionStore } from "../../server/adapters/prisma/agent-stores.ts";

const config = loadConfig();
const served = await serveBaton({
  config,
  instanceId: process.env.BATON_INSTANCE_ID,
  createRunner: (db) =>
    createAgentRunner({
      models: createModelRegistry({ env: {} }),
      artifacts: createPrismaArtifactStore(db.prisma),
      sessions: createPrismaSessionStore(db.prisma),
    }),
});
closeOnSignals(served);
