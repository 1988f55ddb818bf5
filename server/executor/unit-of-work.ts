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
export function transactionRequired(uow: UnitOfWork): Prisma.TransactionClient {
  return new Proxy({} as Prisma.TransactionClient, {
    get() {
      uow.needsTransaction = true;
      throw new TransactionRequired();
    },
  });
}

export class TransactionRequired extends Error {
  constructor() {
    super("this unit of work needs a transaction");
  }
}
