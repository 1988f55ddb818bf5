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
  /** of runsToCancel, those cancelled because their twin won a hedge: what they spent is reported once they stop */
  readonly hedgeLosers: string[] = [];
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
 * The tables an optimistic attempt may read without the lock:
 * - `agent`, `conversationAgent`: they refill the agent directory's cache of rows an admin
 *   edits, which other processes see within its TTL (seconds) anyway, so reading them
 *   unlocked is what the cache does already;
 * - `form`: a plan's forms open, close and get answered only in a unit that also bumps the
 *   plan's version, which the attempt's write checks under the lock, so forms read before
 *   it are the forms of the version the attempt decided from.
 */
const UNLOCKED_READ_TABLES = new Set(["agent", "conversationAgent", "form"]);
const READS = new Set(["findMany", "findFirst", "findUnique"]);

/**
 * The `tx` an optimistic attempt gets: any use means the work needs more than the cached
 * state and the one read, so the attempt is abandoned (nothing was written) and the unit
 * runs again in a locked transaction — except reads of UNLOCKED_READ_TABLES, which go to
 * `outside`, the client with no transaction open. A write, or any other table, still needs
 * the lock.
 */
export function transactionRequired(uow: UnitOfWork, outside?: Prisma.TransactionClient): Prisma.TransactionClient {
  const refuse = (): never => {
    uow.needsTransaction = true;
    throw new TransactionRequired();
  };
  return new Proxy({} as Prisma.TransactionClient, {
    get(_target, table) {
      if (!outside || typeof table !== "string" || !UNLOCKED_READ_TABLES.has(table)) return refuse();
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
