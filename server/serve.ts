/**
 * Baton's HTTP server without the pages: database (migrated, seeded), executor,
 * Socket.IO (with the PostgreSQL adapter when there are several processes) and the
 * operator endpoints (`/healthz`, `/readyz`, `/metrics`: server/ops). `server/index.ts`
 * adds Next.js on top; tests start it bare in child processes to prove several
 * processes start and serve side by side.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "socket.io";
import type { Config } from "./config/config.ts";
import { bootCore, type BootedCore } from "./boot.ts";
import type { ProviderCircuits } from "./agents/circuit-breaker.ts";
import type { Database } from "./db/database.ts";
import type { AgentRunner } from "./ports/executor.ts";
import { createSocketPublisher } from "./adapters/socket/socket-publisher.ts";
import { listConversationEvents } from "./adapters/prisma/event-log.ts";
import { attachSocketHandlers } from "./socket/handlers.ts";
import { attachClusterAdapter, createSocketServer } from "./socket/server.ts";
import { socketLimitsFromEnv } from "./socket/limits.ts";
import { postgresBus } from "./adapters/socket/event-bus.ts";
import { refuseOversizedBody } from "./http/body-gate.ts";
import { stampClientHeaders } from "./http/client-address.ts";
import { refuseMalformedRequest } from "./http/request-gate.ts";
import { createV1Server } from "./api-v1/serve-v1.ts";
import { defaultMigrationsDir } from "./db/database.ts";
import { createHealth } from "./ops/health.ts";
import { createMetrics } from "./ops/metrics.ts";
import { createOpsRoutes } from "./ops/ops-routes.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "./protocol/events.ts";
import { log, logWithoutStack } from "./observability/log.ts";
import { isDatabaseUnreachable } from "./db/database-errors.ts";
import { onDatabaseReachability } from "./db/pg-guard.ts";
import { announceDatabaseStatus } from "./socket/database-status.ts";
import { withRequestLog } from "./ops/http-log.ts";
import { startTracing, stopTracing } from "./observability/tracing.ts";

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface ServedBaton {
  core: BootedCore;
  io: Server<ClientToServerEvents, ServerToClientEvents>;
  httpServer: HttpServer;
  /** the port actually listened on (config.port 0 picks a free one) */
  port: number;
  /**
   * A graceful stop: not ready any more (load balancers move away), no new runs claimed,
   * live runs given the grace period, the rest handed back to other processes at once,
   * sockets closed (browsers reconnect to another process), then the database.
   */
  close(): Promise<void>;
}

/** Answered by the custom server itself (server/ops/ops-routes.ts). */
export { READINESS_PATH } from "./ops/ops-routes.ts";

/** SIGTERM / SIGINT: close gracefully (see ServedBaton.close), run `after`, exit 0. */
export function closeOnSignals(served: ServedBaton, after: () => Promise<void> = async () => {}): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${signal}: stopping Baton`);
    try {
      await served.close();
      await after();
    } finally {
      process.exit(0);
    }
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

export async function serveBaton(input: {
  config: Config;
  createRunner: (db: Database) => AgentRunner;
  instanceId?: string;
  /** prepares the page handler (Next.js) once the core is up; without it only the probe and Socket.IO answer */
  pages?: () => Promise<RequestHandler>;
  /** the runner's per-model circuit breakers, shown on the admin page */
  circuits?: ProviderCircuits;
}): Promise<ServedBaton> {
  const { config } = input;
  // an outage's errors are the same at every pool and request: logged without their stacks
  logWithoutStack(isDatabaseUnreachable);
  // OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (server/observability/tracing.ts)
  await startTracing();
  const httpServer = createServer();
  const socketLimits = socketLimitsFromEnv(config.env);
  const io: Server<ClientToServerEvents, ServerToClientEvents> = createSocketServer(httpServer, {
    trustProxy: config.trustProxy,
    limits: socketLimits,
  });

  const publisher = createSocketPublisher(io);
  const core = await bootCore({
    config,
    publisher,
    createRunner: input.createRunner,
    instanceId: input.instanceId,
    circuits: input.circuits,
  });
  let closeCluster = async () => {};
  if (core.db.kind === "postgres" && core.db.pool) {
    // several processes: rooms span all of them through PostgreSQL NOTIFY (the adapter's
    // table is created with the database's own setup, under a lock: see database.ts)
    const endAdapterPool = attachClusterAdapter(io, core.db.pool);
    const bus = postgresBus(core.db.pool);
    const prisma = core.db.prisma;
    publisher.watchCluster(
      (conversationId, first, last) => listConversationEvents(prisma, { conversationId, afterSeq: first - 1, limit: last - first + 1 }),
      bus,
    );
    closeCluster = async () => {
      await bus.close();
      await endAdapterPool();
    };
  }
  // a worker's events reach browsers through the adapter; browsers connect to web nodes
  if (config.role !== "worker") {
    // the live indicator: this node's browsers hear when it cannot reach the database
    const databaseStatus = announceDatabaseStatus({
      subscribe: onDatabaseReachability,
      emitToAll: (status) => io.local.emit("database-status", status),
    });
    attachSocketHandlers(io, { app: core.app, limits: socketLimits, databaseStatus });
  }

  let draining = false;
  const opsRoutes = createOpsRoutes({
    health: await createHealth({ prisma: core.db.prisma, migrationsDir: defaultMigrationsDir(), isDraining: () => draining }),
    metrics: createMetrics({
      prisma: core.db.prisma,
      pools: { prisma: core.db.pool, hot_path: core.db.hotPathPool },
      liveSockets: () => io.engine.clientsCount,
      circuits: input.circuits,
    }),
    metricsTokens: [config.env.BATON_METRICS_TOKEN, config.apiToken],
  });

  const pages = input.pages ? await input.pages() : null;
  // the automation API, on every process that serves people (a worker answers only probes)
  const api = config.role === "worker" ? null : createV1Server({ maxBodyBytes: config.maxBodyBytes });
  // every request gets an id (echoed in X-Request-Id, on each log line while it is served) and a log line
  const serveRequest = withRequestLog((request, response) => {
    // probes and metrics answer before anything else looks at the request
    if (opsRoutes(request, response)) return;
    if (!pages && !api) {
      response.writeHead(404).end();
      return;
    }
    // the body cap before Next, the API or any authentication sees the request
    if (refuseOversizedBody(request, response, config.maxBodyBytes)) return;
    // a broken path, a NUL in the query, a malformed router state header: 400, not a 500 from within
    if (refuseMalformedRequest(request, response)) return;
    // the address and protocol limiters and cookies use: from the socket, or from a
    // trusted proxy's X-Forwarded-* (BATON_TRUST_PROXY); clients cannot forge either
    stampClientHeaders(request, config.trustProxy);
    if (api?.(request, response)) return;
    if (pages) pages(request, response);
    else response.writeHead(404).end();
  });
  httpServer.on("request", (request, response) => {
    // Socket.IO answers its own path; everything else is the operator endpoints', the API's or Next's
    if (!request.url?.startsWith("/socket.io/")) serveRequest(request, response);
  });

  await new Promise<void>((resolve) => httpServer.listen(config.port, config.host, resolve));
  const port = (httpServer.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    core,
    io,
    httpServer,
    port,
    close: () =>
      (closing ??= (async () => {
        draining = true;
        const { finished, handedBack } = await core.executor.drain({ graceMs: config.shutdownGraceMs });
        if (finished + handedBack > 0)
          log.info({ finished, handedBack }, `shutting down: ${finished} run(s) finished, ${handedBack} handed back`);
        // io.close() also closes the HTTP server; clients see the transport close and reconnect
        await new Promise<void>((resolve) => void io.close(() => resolve()));
        await closeCluster();
        await core.close();
        await stopTracing();
      })()),
  };
}
