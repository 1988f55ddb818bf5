/**
 * One builder for executor tests: a fresh database, the demo agents, a conversation,
 * and an executor wired to a scripted runner and a recording publisher.
 */
import { randomUUID } from "node:crypto";
import { createTestDatabase } from "../../db/testing/test-database.ts";
import type { Database } from "../../db/database.ts";
import { seedWorkspace } from "../../services/seed.ts";
import { createConversationServices } from "../../services/conversations.ts";
import { createApplication, type Application } from "../../services/application.ts";
import type { PostedMessage } from "../../services/messages.ts";
import { createModelRegistry } from "../../agents/model-registry.ts";
import { getSessionWithUser } from "../../auth/session.ts";
import type { ConversationEventDTO } from "../../protocol/events.ts";
import type { PlanStatus } from "../../core/types.ts";
import { Executor } from "../executor.ts";
import type { ExecutorConfig, ExecutorDeps } from "../context.ts";
import { systemClock } from "../system-clock.ts";
import type { AgentRunner } from "../../ports/executor.ts";
import { ScriptedRunner, ok, type Script } from "./scripted-runner.ts";

export const TEST_EXECUTOR_CONFIG: ExecutorConfig = {
  planLimits: { maxSteps: 500, maxInputChars: 20_000, defaultMaxParallel: 8, defaultMaxRetries: 3 },
  leaseMs: 30_000,
  modelConcurrency: {},
  singleProcess: true,
  role: "all",
  workerSlots: 64,
  sweepMs: 2_000,
};

export interface ExecutorFixture {
  db: Database;
  executor: Executor;
  /** the application over the fixture's (current) executor: what people ask for */
  app: Application;
  runner: ScriptedRunner;
  services: ReturnType<typeof createConversationServices>;
  published: ConversationEventDTO[];
  /** every streamed text delta, as the publisher received it */
  deltas: string[];
  conversationId: string;
  userId: string;
  /** waits (polling the database; tests only) until the plan reaches one of the statuses */
  waitForPlan(planId: string, statuses?: PlanStatus[], timeoutMs?: number): Promise<PlanStatus>;
  /** the fixture's person posts `body` in the fixture's conversation (mentions typed, none picked) */
  say(body: string): Promise<PostedMessage>;
  /** another executor on the same database (e.g. with another role), started; closed with the fixture */
  addExecutor(config?: Partial<ExecutorConfig>): Promise<Executor>;
  /** a second executor on the same database, as after a restart */
  restart(options?: { runner?: AgentRunner }): Promise<Executor>;
  close(): Promise<void>;
}

export async function createExecutorFixture(
  options: {
    kind?: "embedded" | "postgres";
    script?: Script;
    config?: Partial<ExecutorConfig>;
    db?: Database;
    /** a real agent runtime instead of the scripted runner */
    createRunner?: (db: Database) => AgentRunner;
    hooks?: ExecutorDeps["hooks"];
    /** default: when the database works elsewhere (PostgreSQL), as the server decides */
    earlyStart?: boolean;
    /** a clock of the test's own (e.g. one whose timers never fire) */
    clock?: ExecutorDeps["clock"];
    /** a liveness lock of the test's own (the first executor's only) */
    liveness?: ExecutorDeps["liveness"];
  } = {},
): Promise<ExecutorFixture> {
  const db = options.db ?? (await createTestDatabase({ kind: options.kind ?? "embedded" }));
  await seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: false });
  const services = createConversationServices(db.prisma);
  const published: ConversationEventDTO[] = [];
  const deltas: string[] = [];
  const runner = new ScriptedRunner(options.script ?? ((request) => ok(`done: ${request.input.slice(0, 40)}`)));
  const config = { ...TEST_EXECUTOR_CONFIG, ...options.config };
  const build = (agentRunner: AgentRunner, overrides: Partial<ExecutorConfig> = {}, liveness?: ExecutorDeps["liveness"]) =>
    new Executor({
      prisma: db.prisma,
      sql: db.sql,
      earlyStart: options.earlyStart ?? db.sqlElsewhere,
      runner: agentRunner,
      publisher: { publish: (events) => published.push(...events), runDelta: (_conversation, _run, delta) => deltas.push(delta) },
      clock: options.clock ?? systemClock,
      random: Math.random,
      instanceId: `test-${randomUUID()}`,
      config: { ...config, ...overrides },
      logger: { info() {}, warn: console.warn, error: console.error },
      hooks: options.hooks,
      ...(liveness ? { liveness } : {}),
    });
  const initialRunner = options.createRunner ? options.createRunner(db) : runner;
  let executor = build(initialRunner, {}, options.liveness);
  await executor.start();
  const buildApp = () =>
    createApplication({
      prisma: db.prisma,
      engine: executor,
      agentModels: () => ({ models: createModelRegistry({ env: {} }) }),
      readSession: (headers) => getSessionWithUser(headers, db.prisma),
    });
  let app = buildApp();
  const user = await db.prisma.user.create({
    data: { id: randomUUID(), name: "Ada", email: `ada-${randomUUID()}@example.com` },
  });
  const conversation = await services.createConversation({
    title: "test",
    agentHandles: ["researcher", "analyst", "writer"],
    userId: user.id,
  });

  const extra: Executor[] = [];
  const fixture: ExecutorFixture = {
    db,
    get executor() {
      return executor;
    },
    get app() {
      return app;
    },
    runner,
    services,
    published,
    deltas,
    conversationId: conversation.id,
    userId: user.id,
    say(body) {
      return app.messages.postMessage({
        conversationId: conversation.id,
        author: { kind: "user", userId: user.id },
        body,
        mentionHandles: [],
      });
    },
    async waitForPlan(planId, statuses = ["completed", "partial", "failed", "cancelled"], timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const plan = await db.prisma.plan.findUniqueOrThrow({ where: { id: planId }, select: { status: true } });
        if (statuses.includes(plan.status)) {
          await executor.idle();
          return plan.status;
        }
        if (Date.now() > deadline) throw new Error(`plan ${planId} still ${plan.status} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    },
    async addExecutor(overrides = {}) {
      const added = build(runner, overrides);
      extra.push(added);
      await added.start();
      return added;
    },
    async restart(restartOptions = {}) {
      await executor.stop();
      executor = build(restartOptions.runner ?? (options.createRunner ? options.createRunner(db) : runner));
      app = buildApp();
      await executor.start();
      return executor;
    },
    async close() {
      for (const added of extra) await added.stop();
      await executor.stop();
      if (!options.db) await db.close();
    },
  };
  return fixture;
}
