/**
 * Baton's server: Next.js pages and routes, Socket.IO and the executor on one port.
 * This is where concrete adapters are chosen (database, models, publisher).
 */
import { createServer } from "node:http";
import next from "next";
import { createAdapter } from "@socket.io/postgres-adapter";
import { ConfigError, loadConfig } from "./config/config.ts";
import { bootCore } from "./boot.ts";
import { createSocketPublisher } from "./adapters/socket/socket-publisher.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "./adapters/prisma/agent-stores.ts";
import { createAgentRunner } from "./agents/run-agent.ts";
import { createModelRegistry } from "./agents/model-registry.ts";
import { corePlanValidator } from "./agents/core-plan-validator.ts";
import { createSocketServer } from "./socket/server.ts";
import { attachSocketHandlers } from "./socket/handlers.ts";
import { refuseOversizedBody } from "./http/body-gate.ts";
import { defaultMigrationsDir } from "./db/database.ts";
import { createHealth } from "./ops/health.ts";
import { createMetrics } from "./ops/metrics.ts";
import { createOpsRoutes } from "./ops/ops-routes.ts";
import { stampClientHeaders } from "./http/client-address.ts";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const httpServer = createServer();
  const io = createSocketServer(httpServer, { trustProxy: config.trustProxy });

  const models = createModelRegistry({ env: config.env });
  const core = await bootCore({
    config,
    publisher: createSocketPublisher(io),
    createRunner: (db) =>
      createAgentRunner({
        models,
        artifacts: createPrismaArtifactStore(db.prisma),
        sessions: createPrismaSessionStore(db.prisma),
        memory: createPrismaConversationMemory(db.prisma),
        validatePlan: corePlanValidator(config.planLimits),
      }),
  });
  if (core.db.kind === "postgres" && core.db.pool) {
    // several processes: rooms span all of them through PostgreSQL NOTIFY
    await core.db.pool.query(
      `CREATE TABLE IF NOT EXISTS socket_io_attachments (id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)`,
    );
    io.adapter(createAdapter(core.db.pool));
  }
  attachSocketHandlers(io, { prisma: core.db.prisma });

  let stopping = false;
  const health = await createHealth({ prisma: core.db.prisma, migrationsDir: defaultMigrationsDir(), isDraining: () => stopping });

  const opsRoutes = createOpsRoutes({
    health,
    metrics: createMetrics({ prisma: core.db.prisma, pool: core.db.pool, liveSockets: () => io.engine.clientsCount }),
    metricsTokens: [config.env.BATON_METRICS_TOKEN, config.apiToken],
  });

  const app = next({ dev: config.dev, hostname: config.host, port: config.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  httpServer.on("request", (request, response) => {
    // Socket.IO answers its own path; everything else is Next's
    if (request.url?.startsWith("/socket.io/")) return;
    // probes and metrics answer before anything else looks at the request
    if (opsRoutes(request, response)) return;
    // the body cap before Next or any authentication sees the request
    if (refuseOversizedBody(request, response, config.maxBodyBytes)) return;
    // the address and protocol limiters and cookies use: from the socket, or from a
    // trusted proxy's X-Forwarded-* (BATON_TRUST_PROXY); clients cannot forge either
    stampClientHeaders(request, config.trustProxy);
    void handle(request, response);
  });

  await new Promise<void>((resolve) => httpServer.listen(config.port, config.host, resolve));
  const where = core.db.kind === "embedded" ? `embedded database in ${config.dataDir}` : "PostgreSQL";
  console.log(`Baton is ready on http://localhost:${config.port} (${where}, default model ${config.defaultModel})`);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping Baton`);
    io.close();
    httpServer.close();
    await core.close();
    await app.close?.();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}


main().catch((error) => {
  console.error("Baton failed to start:", error);
  process.exit(1);
});
