/**
 * Running one unit of work on a conversation: optimistically when it can (one read,
 * one write that checks nothing changed), else in the locked transaction; then the
 * caller's after-commit step. See ARCHITECTURE.md, "The loop".
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { CONFLICT_MARKER, sqlWrites, type WriteExpectation } from "../adapters/prisma/write-batch.ts";
import { conversationLockKey, enterConversation, readPlanContext } from "../adapters/prisma/plan-repository.ts";
import { PROTOCOL_VERSION, type ConversationEventDTO } from "../protocol/events.ts";
import type { ExecutorContext } from "./context.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { transactionRequired, UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

export class UnitRunner {
  private readonly mutex = new KeyedMutex();
  /** how units ran: optimistic writes, and fallbacks to the locked transaction */
  readonly stats = { optimistic: 0, conflicts: 0, neededTransaction: 0, locked: 0 };

  constructor(
    private readonly context: ExecutorContext,
    private readonly onCommit: (uow: UnitOfWork, published: ConversationEventDTO[]) => void,
  ) {}

  /**
   * The one way to change a conversation: lock, work, append events, commit, then act.
   * `plan` names the plan (and run) the work will reconcile. Then the unit is first
   * tried optimistically — read without a transaction, decide, and write everything in
   * one statement that takes the lock and checks the plan did not change meanwhile —
   * and falls back to the locked transaction if it did, or if the work needs more
   * than the cached state and the one read (it touched `tx`).
   */
  run<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan?: { planId: string; runId?: string },
  ): Promise<T> {
    return this.mutex.run(conversationId, async () => {
      if (plan) {
        const attempt = await this.optimisticUnit(conversationId, work, plan);
        if (attempt.done) return attempt.value;
      }
      return this.lockedUnit(conversationId, work, plan);
    });
  }

  private async optimisticUnit<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan: { planId: string; runId?: string },
  ): Promise<{ done: true; value: T } | { done: false }> {
    const uow = new UnitOfWork(conversationId);
    const read = await readPlanContext(this.context.prisma, plan);
    uow.prefetched = { planId: plan.planId, runId: plan.runId ?? null, context: read };
    let value: T;
    try {
      value = await work(transactionRequired(uow), uow);
    } catch (error) {
      if (!uow.needsTransaction) throw error;
    }
    if (uow.needsTransaction) {
      this.stats.neededTransaction++;
      return { done: false };
    }
    let published: ConversationEventDTO[] = [];
    if (!uow.batch.isEmpty || uow.events.length > 0 || uow.stepLog.length > 0) {
      await this.context.hooks?.beforeOptimisticWrite?.({ conversationId, planId: plan.planId });
      try {
        published = await this.flushUnit(this.context.prisma, uow, {
          lockKey: conversationLockKey(conversationId),
          planId: plan.planId,
          version: read.version,
          runId: plan.runId ?? null,
          runStatus: read.runStatus,
        });
      } catch (error) {
        if (!String((error as Error)?.message ?? error).includes(CONFLICT_MARKER)) throw error;
        this.stats.conflicts++;
        return { done: false };
      }
    }
    this.stats.optimistic++;
    this.onCommit(uow, published);
    return { done: true, value: value! };
  }

  private async lockedUnit<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan?: { planId: string; runId?: string },
  ): Promise<T> {
    this.stats.locked++;
    const uow = new UnitOfWork(conversationId);
    let published: ConversationEventDTO[] = [];
    const result = await this.context.prisma.$transaction(
      async (tx) => {
        const context = await enterConversation(tx, {
          conversationId,
          planId: plan?.planId ?? null,
          runId: plan?.runId ?? null,
        });
        if (plan) uow.prefetched = { planId: plan.planId, runId: plan.runId ?? null, context };
        const value = await work(tx, uow);
        published = await this.flushUnit(tx, uow);
        return value;
      },
      { maxWait: 30_000, timeout: 120_000 },
    );
    this.onCommit(uow, published);
    return result;
  }

  /** Writes the unit's batch and events (one call) and returns the events with their seq. */
  private async flushUnit(
    runner: Pick<Tx, "$queryRaw">,
    uow: UnitOfWork,
    expect?: WriteExpectation,
  ): Promise<ConversationEventDTO[]> {
    const now = this.context.stamp();
    if (uow.stepLog.length > 0) {
      uow.batch.add(
        sqlWrites.insertStepEvents(uow.stepLog.map((line) => ({ ...line, runId: line.runId ?? null, at: now, data: line.data ?? null }))),
      );
    }
    const lastSeq = await uow.batch.flush(runner, { conversationId: uow.conversationId, events: uow.events, now, expect });
    if (lastSeq === null) return [];
    const first = lastSeq - uow.events.length + 1;
    return uow.events.map(
      (event, offset) =>
        ({
          v: PROTOCOL_VERSION,
          conversationId: uow.conversationId,
          seq: first + offset,
          type: event.type,
          payload: event.payload,
          createdAt: now.toISOString(),
        }) as ConversationEventDTO,
    );
  }
}
