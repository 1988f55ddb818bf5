/**
 * Wires Baton's parts together: config → database (migrated) → demo workspace →
 * executor (the engine) → the application facade over it. The one place where concrete adapters are chosen; used by the server,
 * by headless worker processes in tests, and by the benchmarks.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Config } from "./config/config.ts";
import { openDatabase, type Database } from "./db/database.ts";
import { Executor } from "./executor/executor.ts";
import type { AgentRunner, EventPublisher } from "./ports/executor.ts";
import { systemClock } from "./executor/system-clock.ts";
import { createApplication, type Application } from "./services/application.ts";
import { workspaceCliAgents, workspaceModels } from "./workspace-models.ts";
import { getSessionWithUser } from "./auth/session.ts";
import { socketConversationNotifier, socketMembershipNotifier } from "./socket/rooms.ts";
import { seedWorkspace } from "./services/seed.ts";
import { setRuntime, type Runtime } from "./runtime.ts";
import { claimDataDir, DataDirBusyError, liveOwnerOf } from "./ops/live-backup.ts";
import { postgresNotifications } from "./executor/notifications.ts";
import { postgresLiveness } from "./db/liveness.ts";
import type { ProviderCircuits } from "./agents/circuit-breaker.ts";

export interface BootedCore {
  db: Database;
  executor: Executor;
  app: Application;
  runtime: Runtime;
  demoConversationId: string | null;
  close(): Promise<void>;
}

export async function bootCore(input: {
  config: Config;
  createRunner: (db: Database) => AgentRunner;
  publisher: EventPublisher;
  instanceId?: string;
  /** false: don't take over orphaned runs or resume plans (tools that only read) */
  startExecutor?: boolean;
  /** the breakers the runner uses, shown on the admin page */
  circuits?: ProviderCircuits;
}): Promise<BootedCore> {
  const { config } = input;
  // the embedded database's files are this process's alone: refuse to open them under another
  const owner = config.databaseUrl ? null : liveOwnerOf(config.dataDir);
  if (owner !== null && owner !== process.pid) {
    throw new DataDirBusyError(`the embedded database in ${path.resolve(config.dataDir)} is in use by process ${owner}; stop it first`);
  }
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: path.join(config.dataDir, "pglite"),
    thread: config.pgliteThread,
  });
  const releaseDataDir = db.pglite ? await claimDataDir({ dataDir: config.dataDir, pglite: db.pglite }) : async () => {};
  const seeded = await seedWorkspace(db.prisma, { defaultModel: config.defaultModel, demoConversation: config.seedDemo });
  const instanceId = input.instanceId ?? `baton-${process.pid}-${randomUUID().slice(0, 8)}`;
  const liveness = db.pool
    ? postgresLiveness({ config: db.pool.options, instanceId, pool: db.pool, runsAgents: config.role !== "web" })
    : undefined;
  const executor = new Executor({
    prisma: db.prisma,
    sql: db.sql,
    earlyStart: db.sqlElsewhere,
    runner: input.createRunner(db),
    publisher: input.publisher,
    clock: systemClock,
    random: Math.random,
    instanceId,
    config: {
      planLimits: config.planLimits,
      leaseMs: config.leaseMs,
      modelConcurrency: config.modelConcurrency,
      singleProcess: db.kind === "embedded",
      role: config.role,
      workerSlots: config.workerSlots,
      sweepMs: config.sweepMs,
      hedging: config.hedging,
    },
    notifications: db.pool ? postgresNotifications(db.pool) : undefined,
    liveness,
  });
  const app = createApplication({
    prisma: db.prisma,
    engine: executor,
    // a process without Socket.IO (a worker, a tool) has no live sockets to tell: these do nothing there
    notifiers: { memberships: socketMembershipNotifier, conversations: socketConversationNotifier },
    agentModels: () => ({ models: workspaceModels(), cliAgents: workspaceCliAgents() }),
    readSession: (headers) => getSessionWithUser(headers, db.prisma),
  });
  const runtime: Runtime = {
    config,
    prisma: db.prisma,
    sql: db.sql,
    app,
    apiUserId: seeded.apiUserId,
    circuits: input.circuits ?? null,
  };
  setRuntime(runtime);
  if (input.startExecutor !== false) await executor.start();
  return {
    db,
    executor,
    app,
    runtime,
    demoConversationId: seeded.demoConversationId,
    async close() {
      await executor.stop();
      await liveness?.close();
      await releaseDataDir();
      await db.close();
    },
  };
}
