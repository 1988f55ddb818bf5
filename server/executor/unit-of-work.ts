/**
 * What one locked transaction decided to do after it commits. Nothing here touches
 * the outside world until the transaction is durable: events are published, runs
 * started and timers set only then.
 */
import type { PendingEvent } from "../adapters/prisma/event-log.ts";
import type { ConversationEventType, ConversationEventPayloads } from "../protocol/events.ts";
import type { RunLaunch } from "./run-launch.ts";
import type { LoadedPlan, PlanContext } from "../adapters/prisma/plan-repository.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { WriteBatch } from "../adapters/prisma/write-batch.ts";

export interface StepLogLine {
  planId: string;
  stepIndex: number | null;
  runId?: string | null;
  phase: string;
  message: string;
  data?: unknown;
}

export class UnitOfWork {
  readonly events: PendingEvent[] = [];
  /** execution-log lines, written in one insert at the end of the transaction */
  readonly stepLog: StepLogLine[] = [];
  /** runs this unit created (queued): kept so that claiming one here needs no reads */
  readonly runsCreated: RunLaunch[] = [];
  readonly runsToCancel: string[] = [];
  /** retry times: the process that committed sets a timer; the sweep is the durable backstop */
  readonly ticks: { conversationId: string; planId: string; at: number }[] = [];
  /** set when an optimistic attempt needed the database beyond its one read */
  needsTransaction = false;
  /** forms closed in this transaction */
  readonly closedForms = new Set<string>();

  /** plans as this transaction left them: read back within it, cached once it commits */
  readonly plans = new Map<string, LoadedPlan>();
  /** the hot path's row writes, sent as one statement before commit */
  readonly batch = new WriteBatch();
  /** read together with taking the lock, for the plan (and run) this unit was entered for */
  prefetched: { planId: string; runId: string | null; context: PlanContext } | null = null;
  /**
   * Where to read a plan's forms: the transaction, or in an optimistic attempt the client
   * outside it. That read needs no lock: a plan's forms open, close and get answered only
   * in a unit that also bumps the plan's version, which the attempt's write checks under
   * the lock — so forms read before it are the forms of the version it decided from.
   */
  formReader: Pick<Prisma.TransactionClient, "form"> | null = null;

  constructor(readonly conversationId: string) {}

  cachePlan(plan: LoadedPlan): void {
    this.plans.set(plan.state.id, plan);
  }

  emit<K extends ConversationEventType>(type: K, payload: ConversationEventPayloads[K]): void {
    this.events.push({ type, payload });
  }

  log(line: StepLogLine): void {
    this.stepLog.push(line);
  }
}

/**
 * The `tx` an optimistic attempt gets: any use means the work needs more than the
 * cached state and the one read, so the attempt is abandoned (nothing was written)
 * and the unit runs again in a locked transaction.
 */
/** The tables an optimistic attempt may read outside the lock: caches that are minutes stale by design. */
const CACHED_TABLES = new Set(["agent", "conversationAgent"]);
const READS = new Set(["findMany", "findFirst", "findUnique"]);

/**
 * The `tx` an optimistic attempt gets: any use abandons the attempt (it runs again,
 * locked), except reads of the agent directory's tables through `outside`, the client
 * with no transaction open. Those refill a cache of rows an admin edits (and other
 * processes see an edit within its TTL anyway), so reading them without the lock is
 * what the cache does already; a write, or any other table, still needs the lock.
 */
export function transactionRequired(uow: UnitOfWork, outside?: Prisma.TransactionClient): Prisma.TransactionClient {
  const refuse = (): never => {
    uow.needsTransaction = true;
    throw new TransactionRequired();
  };
  return new Proxy({} as Prisma.TransactionClient, {
    get(_target, table) {
      if (!outside || typeof table !== "string" || !CACHED_TABLES.has(table)) return refuse();
      const delegate = outside[table as keyof Prisma.TransactionClient] as unknown as Record<string, unknown>;
      return new Proxy(delegate, {
        get: (target, method) =>
          typeof method === "string" && READS.has(method) ? (target[method] as (...args: unknown[]) => unknown).bind(target) : refuse(),
      });
    },
  });
}

export class TransactionRequired extends Error {
  constructor() {
    super("this unit of work needs a transaction");
  }
}
