/** What every part of the executor shares: its dependencies and process-local caches. */
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { SqlRunner } from "../db/sql-runner.ts";
import type { LoadedPlan } from "../adapters/prisma/plan-repository.ts";
import type { AgentRunner, ArtifactRef, Clock, EventPublisher } from "../ports/executor.ts";
import { AgentDirectory } from "./agent-directory.ts";
import { consoleLike, logFor } from "../observability/log.ts";
import type { Liveness } from "../db/liveness.ts";

export interface ExecutorConfig {
  planLimits: { maxSteps: number; maxInputChars: number; defaultMaxParallel: number; defaultMaxRetries: number };
  leaseMs: number;
  modelConcurrency: Record<string, number>;
  /** embedded database: this is the only process, so every live run found at start-up is orphaned */
  singleProcess: boolean;
  /** all: serve and run agents; web: never claims runs; worker: claims and runs them */
  role: ExecutorRole;
  /** most runs this process runs at once (its room in the run queue) */
  workerSlots: number;
  /** how often the sweep looks for work nobody woke (claims, due retries, idle plans, expired leases) */
  sweepMs: number;
  /**
   * race a step that runs past its agent's p95 with a twin on the agent's hedgeModel
   * (executor/hedging.ts); absent: on. Agents without a hedgeModel are never hedged
   */
  hedging?: boolean;
}

export type ExecutorRole = "all" | "web" | "worker";

/** Wake-ups from other processes: a unit signalled that runs wait in the queue. */
export interface Notifications {
  /** subscribes; resolves to the unsubscribe function */
  listen(onRunsWaiting: () => void): Promise<() => Promise<void>>;
}

export interface ExecutorDeps {
  prisma: PrismaClient;
  /** the database driver's own query (Database.sql), for the hot path's one-statement units */
  sql: SqlRunner;
  /**
   * start the runs a unit creates while its statement is in flight (ARCHITECTURE.md,
   * "Early start"): worth it only when the database works elsewhere (Database.sqlElsewhere);
   * on one thread the run would only wait its turn behind the statement
   */
  earlyStart?: boolean;
  runner: AgentRunner;
  publisher: EventPublisher;
  clock: Clock;
  random: () => number;
  /** identifies this process in run leases */
  instanceId: string;
  /** PostgreSQL LISTEN; absent with one process (the embedded database wakes in-process) */
  notifications?: Notifications;
  /** PostgreSQL: this process's liveness lock, and other processes' (db/liveness.ts); absent with one process */
  liveness?: Liveness;
  config: ExecutorConfig;
  logger?: Pick<Console, "info" | "warn" | "error">;
  /** observation points for tests that need to interleave with a unit of work */
  hooks?: { beforeOptimisticWrite?: (input: { conversationId: string; planId: string }) => Promise<void> };
}

/**
 * Plans as this process last wrote or read them. A copy is used only after checking,
 * under the conversation lock, that the row's version still matches.
 */
export class PlanCache {
  private readonly plans = new Map<string, LoadedPlan>();
  constructor(private readonly capacity = 256) {}

  get(planId: string): LoadedPlan | undefined {
    return this.plans.get(planId);
  }

  set(plan: LoadedPlan): void {
    this.plans.delete(plan.state.id);
    this.plans.set(plan.state.id, plan);
    if (this.plans.size > this.capacity) this.plans.delete(this.plans.keys().next().value!);
  }

  delete(planId: string): void {
    this.plans.delete(planId);
  }
}

export interface ExecutorContext extends ExecutorDeps {
  logger: Pick<Console, "info" | "warn" | "error">;
  agents: AgentDirectory;
  plans: PlanCache;
  /** request message id → its attachments (fixed once the message exists) */
  attachments: Map<string, ArtifactRef[]>;
  /** now, strictly increasing within this process, so rows written together keep their order */
  stamp(): Date;
}

export function createExecutorContext(deps: ExecutorDeps): ExecutorContext {
  let last = 0;
  return {
    ...deps,
    logger: deps.logger ?? consoleLike(logFor({ component: "executor" })),
    agents: new AgentDirectory(() => deps.clock.now()),
    plans: new PlanCache(),
    attachments: new Map(),
    stamp() {
      last = Math.max(deps.clock.now(), last + 1);
      return new Date(last);
    },
  };
}
