/**
 * Running one unit of work on a conversation: optimistically when it can (one read,
 * one write that checks nothing changed), else in the locked transaction; then the
 * caller's after-commit step. See ARCHITECTURE.md, "The loop".
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { sqlWrites, type ClaimRequest, type ClaimedRun, type WriteExpectation } from "../adapters/prisma/write-batch.ts";
import { conversationLockKey, enterConversation, readPlanContext, type PlanContext } from "../adapters/prisma/plan-repository.ts";
import { PROTOCOL_VERSION, type ConversationEventDTO, type ConversationEventPayloads } from "../protocol/events.ts";
import type { ExecutorContext } from "./context.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { prismaSql, type SqlRunner } from "../db/sql-runner.ts";
import { databaseErrorInfo, isRolledBackForConflict, isWriteConflict } from "../db/database-errors.ts";
import type { PendingEvent } from "../adapters/prisma/event-log.ts";
import { transactionRequired, UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

/**
 * The plan (and run) a unit will reconcile, which lets it run optimistically. `created`:
 * the unit creates this plan, so there is nothing to read: it must not exist yet.
 */
export interface UnitPlan {
  planId: string;
  runId?: string;
  created?: boolean;
  /**
   * the unit may share its statement with others of the conversation's that queued
   * behind the same busy turn (a run's result: see `UnitRunner.run`)
   */
  batch?: boolean;
}

/** A unit waiting in a batch, and where its outcome goes. */
interface BatchedUnit {
  work: (tx: Tx, uow: UnitOfWork) => Promise<unknown>;
  plan: UnitPlan;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * At most this many units share one statement: enough that a conversation running many
 * plans keeps up (ten plans end at 1.4–1.6 times their critical path, against 2.3–2.5 one
 * unit at a time), few enough that a batch's statement, its events and the runs it starts
 * make no long task (16 at once put the event-loop p99 of those ten plans at 20–27 ms
 * against 13–19 with 8).
 */
const MAX_BATCH = 8;
/** how long a batch decides before it lets the event loop turn */
const BATCH_SLICE_MS = 4;
/**
 * How often a unit the database rolled back for a conflict (a deadlock, a serialization
 * failure) is run again, after 5, 10, 20, 40 ms and a jitter: the other transaction won,
 * nothing of this one was written. Left to its caller, a run's result would be dropped
 * and its run, still `running`, recorded lost when its lease ran out.
 */
const CONFLICT_RETRIES = 4;

/** What the executor does around a unit's write. */
export interface UnitHooks {
  /** the unit has decided and its write is about to go out (runs it created may start early) */
  writing(uow: UnitOfWork): void;
  /** the write committed */
  committed(uow: UnitOfWork, committed: CommittedUnit): void;
  /** the write did not commit (refused, failed or rolled back): nothing it decided happened */
  abandoned(uow: UnitOfWork): void;
}

export class UnitRunner {
  private readonly mutex = new KeyedMutex();
  /**
   * how units ran: optimistic writes, and fallbacks to the locked transaction; `batches`
   * statements that carried several units, `batched` the units they carried
   */
  readonly stats = { optimistic: 0, fromCache: 0, conflicts: 0, neededTransaction: 0, locked: 0, batches: 0, batched: 0, rolledBack: 0 };

  constructor(
    private readonly context: ExecutorContext,
    private readonly hooks: UnitHooks,
    /** what this process may claim in this unit's own statement (null: nothing) */
    private readonly claim: (uow: UnitOfWork) => ClaimRequest | null,
  ) {}

  /**
   * The one way to change a conversation: lock, work, append events, commit, then act.
   * `plan` names the plan (and run) the work will reconcile. Then the unit is first
   * tried optimistically — read without a transaction, decide, and write everything in
   * one statement that takes the lock and checks the plan did not change meanwhile —
   * and falls back to the locked transaction if it did, or if the work needs more
   * than the cached state and the one read (it touched `tx`). A unit whose `plan` says
   * `batch` (a run's result) joins the others that queue behind the same busy turn:
   * they go in one statement (runBatch), so a conversation with many plans running is
   * not held to one result per statement.
   */
  run<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    if (plan?.batch) {
      return new Promise<T>((resolve, reject) => {
        const unit: BatchedUnit = { work, plan, resolve: (value) => resolve(value as T), reject };
        this.mutex.join(conversationId, unit, (units) => this.runBatch(conversationId, units), MAX_BATCH);
      });
    }
    return this.mutex.run(conversationId, () => this.runUnit(conversationId, work, plan));
  }

  /** A unit, run again while the database rolls it back for a conflict (CONFLICT_RETRIES). */
  private async runUnit<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.runUnitOnce(conversationId, work, plan);
      } catch (error) {
        if (retry >= CONFLICT_RETRIES || !isRolledBackForConflict(error)) throw error;
        this.stats.rolledBack++;
        const delayMs = 5 * 2 ** retry * (1 + this.context.random());
        this.context.logger.warn("[units] the database rolled a unit back for a conflict; running it again", {
          conversationId,
          sqlState: databaseErrorInfo(error)?.sqlState,
          retry: retry + 1,
          delayMs: Math.round(delayMs),
        });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  private async runUnitOnce<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    if (plan) {
      let attempt = await this.optimisticUnit(conversationId, work, plan, this.cachedContext(plan));
      // decided from the cache that there was nothing to do: no write checked that, so ask the database
      if (!attempt.done && attempt.unchecked) attempt = await this.optimisticUnit(conversationId, work, plan, null);
      if (attempt.done) return attempt.value;
    }
    return this.lockedUnit(conversationId, work, plan);
  }

  /**
   * Units that queued behind the same busy turn (runs of one conversation that ended
   * while it wrote): first all in one optimistic statement — each decided after the
   * ones before it, as if they had run one after another, and the statement expects
   * every plan and run they decided from — and if that cannot be (a plan not in the
   * cache, a unit needing the transaction or failing, the write refused), each on its
   * own, in order, as it would have run anyway.
   */
  private async runBatch(conversationId: string, units: BatchedUnit[]): Promise<void> {
    let index = 0;
    try {
      if (units.length > 1) {
        const values = await this.optimisticBatch(conversationId, units);
        if (values) {
          units.forEach((unit, i) => unit.resolve(values[i]));
          return;
        }
      }
      for (; index < units.length; index++) {
        const { work, plan } = units[index];
        await this.runUnit(conversationId, work, plan).then(units[index].resolve, units[index].reject);
      }
    } catch (error) {
      // only a hook of the executor's own can throw here: whatever is left hears of it
      for (; index < units.length; index++) units[index].reject(error);
    }
  }

  /** The batch's one statement; null when it could not be, and nothing was written. */
  private async optimisticBatch(conversationId: string, units: BatchedUnit[]): Promise<unknown[] | null> {
    const guesses = units.map(({ plan }) => this.cachedContext(plan));
    if (guesses.some((guess) => guess === null)) return null;
    const uow = new UnitOfWork(conversationId);
    const tx = transactionRequired(uow, this.context.prisma);
    const expected: WriteExpectation = { lockKey: conversationLockKey(conversationId), plans: [], runs: [] };
    const values: unknown[] = [];
    let slice = performance.now();
    for (const [i, { work, plan }] of units.entries()) {
      const guess = guesses[i]!;
      // the version the plan had before the batch: a later unit reads the batch's own copy
      if (!expected.plans.some((entry) => entry.planId === plan.planId))
        expected.plans.push({ planId: plan.planId, version: guess.version });
      if (plan.runId) expected.runs.push({ runId: plan.runId, runStatus: guess.runStatus });
      // a long batch lets the event loop turn every few milliseconds: sockets and
      // requests must not wait for all of its units' work at once
      if (performance.now() - slice > BATCH_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      uow.prefetched = { planId: plan.planId, runId: plan.runId ?? null, context: guess };
      // needs the transaction, or failed: on its own it will say so itself
      const value = await work(tx, uow).then(
        (result) => ({ result }),
        () => null,
      );
      if (uow.needsTransaction) this.stats.neededTransaction++;
      if (!value || uow.needsTransaction) return null;
      values.push(value.result);
    }
    // refused, or failed (perhaps on one unit's rows): nothing was written, and each
    // unit on its own meets the conflict or its own error
    const committed = await this.writeExpecting(uow, expected).catch(() => null);
    if (!committed) return null;
    this.stats.optimistic += units.length;
    this.stats.batches++;
    this.stats.batched += units.length;
    this.hooks.committed(uow, committed);
    return values;
  }

  /**
   * Appends events that change no row (a queued run started): one statement, no
   * conversation lock — the Conversation row's lock keeps seq gap-free — in this
   * process's order for the conversation.
   */
  appendEvents(conversationId: string, events: PendingEvent[]): Promise<void> {
    return this.mutex.run(conversationId, async () => {
      const uow = new UnitOfWork(conversationId);
      uow.events.push(...events);
      this.hooks.committed(uow, await this.flushUnit(this.context.sql, uow));
    });
  }

  private async optimisticUnit<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan: UnitPlan,
    guess: PlanContext | null,
  ): Promise<{ done: true; value: T } | { done: false; unchecked?: true }> {
    const uow = new UnitOfWork(conversationId);
    const read = guess ?? (await readPlanContext(this.context.sql, plan));
    uow.prefetched = { planId: plan.planId, runId: plan.runId ?? null, context: read };
    let value: T;
    try {
      value = await work(transactionRequired(uow, this.context.prisma), uow);
    } catch (error) {
      if (!uow.needsTransaction) throw error;
    }
    if (uow.needsTransaction) {
      this.stats.neededTransaction++;
      return { done: false };
    }
    const writes = !uow.batch.isEmpty || uow.events.length > 0 || uow.stepLog.length > 0;
    // only a write checks a guess (under the lock): a guessed "nothing to do" may be a stale cache's
    if (guess && !writes) return { done: false, unchecked: true };
    let committed: CommittedUnit | null = NOTHING_COMMITTED;
    if (writes) {
      committed = await this.writeExpecting(uow, {
        lockKey: conversationLockKey(conversationId),
        plans: [{ planId: plan.planId, version: read.version }],
        runs: plan.runId ? [{ runId: plan.runId, runStatus: read.runStatus }] : [],
      });
      if (!committed) return { done: false };
    }
    this.stats.optimistic++;
    this.hooks.committed(uow, committed);
    return { done: true, value: value! };
  }

  /**
   * An optimistic unit's one statement, which checks `expected` under the lock: the
   * committed unit, or null when the expectation no longer held and nothing was written.
   * Any other failure is thrown, after the unit is abandoned.
   */
  private async writeExpecting(uow: UnitOfWork, expected: WriteExpectation): Promise<CommittedUnit | null> {
    for (const { planId } of expected.plans) {
      await this.context.hooks?.beforeOptimisticWrite?.({ conversationId: uow.conversationId, planId });
    }
    this.hooks.writing(uow);
    try {
      return await this.flushUnit(this.context.sql, uow, expected);
    } catch (error) {
      this.hooks.abandoned(uow);
      if (!isWriteConflict(error)) throw error;
      this.stats.conflicts++;
      return null;
    }
  }

  /**
   * What the optimistic read would most likely return, without reading: the version of
   * the plan as this process last committed it (the cache is updated in the same
   * mutex turn as the commit) and, for a run this process ran to its end, "running".
   * The write checks both under the lock, so a stale guess is refused like a plan that
   * changed after the read, and the unit runs locked; a guess that leads to no write is
   * checked by running the unit again after the read. This takes the read off the path
   * from a step's end to its dependent's dispatch: one statement instead of two.
   */
  private cachedContext(plan: UnitPlan): PlanContext | null {
    // a plan this unit creates: the write checks it is not there (its version is null)
    if (plan.created) return { version: null, runStatus: null };
    const cached = this.context.plans.get(plan.planId);
    if (!cached) return null;
    this.stats.fromCache++;
    return { version: cached.version, runStatus: plan.runId ? "running" : null };
  }

  private async lockedUnit<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    this.stats.locked++;
    const uow = new UnitOfWork(conversationId);
    let committed: CommittedUnit = NOTHING_COMMITTED;
    let writing = false;
    let result: T;
    try {
      result = await this.context.prisma.$transaction(
        async (tx) => {
          const context = await enterConversation(tx, {
            conversationId,
            planId: plan?.planId ?? null,
            runId: plan?.runId ?? null,
          });
          if (plan) uow.prefetched = { planId: plan.planId, runId: plan.runId ?? null, context };
          const value = await work(tx, uow);
          writing = true;
          this.hooks.writing(uow);
          committed = await this.flushUnit(prismaSql(tx), uow);
          return value;
        },
        { maxWait: 30_000, timeout: 120_000 },
      );
    } catch (error) {
      if (writing) this.hooks.abandoned(uow);
      throw error;
    }
    this.hooks.committed(uow, committed);
    return result;
  }

  /**
   * Writes the unit's batch and events (one call), claiming queued runs of the pools
   * it touched, and returns the events with their seq and the claimed runs.
   */
  private async flushUnit(sql: SqlRunner, uow: UnitOfWork, expect?: WriteExpectation): Promise<CommittedUnit> {
    const now = this.context.stamp();
    if (uow.stepLog.length > 0) {
      uow.batch.add(
        sqlWrites.insertStepEvents(uow.stepLog.map((line) => ({ ...line, runId: line.runId ?? null, at: now, data: line.data ?? null }))),
      );
    }
    const notice = uow.events.length > 0 ? (this.context.publisher.commitNotice?.(uow.conversationId) ?? null) : null;
    const { lastSeq, claimed, waiting } = await uow.batch.flush(sql, {
      conversationId: uow.conversationId,
      events: uow.events,
      now,
      expect,
      claim: uow.runsCreated.length > 0 || uow.batch.freesSlots ? this.claim(uow) : null,
      notice,
    });
    if (lastSeq === null) return { published: [], claimed, waiting, othersTold: false };
    const first = lastSeq - uow.events.length + 1;
    const startedAt = new Map(claimed.map((run) => [run.id, run.startedAt]));
    const published = uow.events.map((event, offset) => {
      // the same rewrite the statement applied: a run claimed at once is announced running
      let payload = event.payload;
      if (event.type === "run-updated") {
        const run = (event.payload as ConversationEventPayloads["run-updated"]).run;
        const claimedAt = startedAt.get(run.id);
        if (run.status === "queued" && claimedAt) payload = { run: { ...run, status: "running", startedAt: claimedAt } };
      }
      return {
        v: PROTOCOL_VERSION,
        conversationId: uow.conversationId,
        seq: first + offset,
        type: event.type,
        payload,
        createdAt: now.toISOString(),
      } as ConversationEventDTO;
    });
    return { published, claimed, waiting, othersTold: notice !== null };
  }
}

/** What a committed unit leaves for after commit. */
export interface CommittedUnit {
  /** its events, with their seq */
  published: ConversationEventDTO[];
  /** queued runs its statement claimed for this process */
  claimed: ClaimedRun[];
  /** runs still wait in a pool it touched */
  waiting: boolean;
  /** its statement sent the publisher's commitNotice: the other processes know of its events */
  othersTold: boolean;
}

const NOTHING_COMMITTED: CommittedUnit = { published: [], claimed: [], waiting: false, othersTold: false };
