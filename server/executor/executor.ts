/**
 * The executor, Baton's engine: every change to a conversation's plans and runs happens
 * in one unit of work that first takes the conversation's database lock, so "record
 * what finished" and "decide what runs next" are one atomic unit across processes.
 * After commit it publishes the events, starts the runs and sets the timers. What
 * people ask for (post a message, answer a form, control a plan) lives a layer up, in
 * services/, and reaches the engine through the unit-level methods below.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { assertPlanSize } from "../core/validate-plan.ts";
import type { PlanEvent } from "../core/types.ts";
import type { MessageDTO, PlanDTO } from "../protocol/dto.ts";
import { notFound } from "../protocol/errors.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import { announceCancelledRun, applyPlanEvent, reconcilePlan, stepDTO } from "./plan-effects.ts";
import { createRun, type NewRun } from "./run-records.ts";
import { insertMessage, type NewMessage } from "./messages.ts";
import type { AgentDirectory } from "./agent-directory.ts";
import { createExecutorContext, type ExecutorContext, type ExecutorDeps } from "./context.ts";
import { isRowNotFound } from "../db/database-errors.ts";
import { UnitRunner, type CommittedUnit, type UnitPlan } from "./units.ts";
import { RunWorker } from "./run-worker.ts";
import { Hedging } from "./hedging.ts";
import { storeStoppedRunUsage } from "./stopped-run-usage.ts";
import { storedRequest } from "./run-queue.ts";
import { createPlan } from "./plan-creation.ts";
import { withdrawQueuedRuns } from "./agent-withdrawal.ts";
import { rerunPlan } from "./plan-rerun.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { LeaseKeeper } from "./leases.ts";
import { notices } from "../core/notices.ts";
import { traceEndedPlans } from "../observability/tracing.ts";

type Tx = Prisma.TransactionClient;

/** A plan submitted directly (API, automation), before it is validated. */
export interface PlanSubmission {
  conversationId: string;
  raw: unknown;
  request?: string;
  userId?: string;
  planId?: string;
  /** the hash of the API submission's body, stored with the plan its Idempotency-Key names */
  submissionHash?: string;
}

export class Executor {
  readonly context: ExecutorContext;
  private readonly timers = new Map<string, { at: number; cancel(): void }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** RunWorker.livenessEpoch when each unit began its write: its claim's runs start only if no loss came after */
  private readonly epochAtWrite = new WeakMap<UnitOfWork, number>();
  private readonly leases: LeaseKeeper;
  private stopped = false;
  private readonly units: UnitRunner;
  /** this process's side of the run queue: claims, live runs, lost runs (run-worker.ts) */
  private readonly worker: RunWorker;
  /** when a straggling step run gets a twin (hedging.ts) */
  private readonly hedging: Hedging;

  constructor(deps: ExecutorDeps) {
    this.context = createExecutorContext(deps);
    this.units = new UnitRunner(
      this.context,
      {
        writing: (uow) => {
          this.epochAtWrite.set(uow, this.worker.livenessEpoch);
          this.worker.startEarly(uow.runsCreated, uow.batch.endingRunIds);
        },
        committed: (uow, committed) => this.afterCommit(uow, committed),
        abandoned: (uow) => this.worker.abandonEarly(uow.runsCreated),
      },
      (uow) => this.worker.claimRequest({ unit: { ending: uow.batch.endingRunIds, created: uow.runsCreated } }),
    );
    const host = {
      inConversation: <T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan) =>
        this.inConversation(conversationId, work, plan),
      track: (promise: Promise<unknown>) => this.track(promise),
      stopped: () => this.stopped,
    };
    this.hedging = new Hedging(this.context, host);
    this.worker = new RunWorker(this.context, {
      ...host,
      appendEvents: (conversationId, events) => this.units.appendEvents(conversationId, events),
      hedging: this.hedging,
      runStopped: (launch, result) => {
        if (!this.hedging.aborted(launch, result)) this.track(storeStoppedRunUsage(this.context, host, { launch, usage: result.usage }));
      },
    });
    this.leases = new LeaseKeeper(this.context, {
      liveRunIds: () => this.worker.liveRunIds,
      abortRun: (runId) => this.worker.abort(runId),
      abortAll: () => this.worker.livenessLost({ timeoutMs: 10_000 }),
      runsLost: (input) => this.worker.runsLost(input),
      tickPlan: (input) => this.tick(input),
      claim: () => this.claimSoon(),
      clusterLoad: (load) => this.worker.setClusterLoad(load),
    });
  }

  /** Takes over what a previous process left behind, then keeps leases fresh and sweeps. */
  async start(): Promise<void> {
    // the liveness lock first: a run claimed before it is held would look orphaned to the others
    await this.context.liveness?.start();
    await this.leases.recover();
    this.leases.start();
    this.unlisten = (await this.context.notifications?.listen(() => this.claimSoon())) ?? null;
    this.claimSoon();
  }

  private unlisten: (() => Promise<void>) | null = null;

  /** Stops timers and waits for in-flight bookkeeping; live runs are aborted. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.leases.stop();
    await this.unlisten?.().catch(() => undefined);
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.worker.abortAll();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * A graceful stop (SIGTERM): claim nothing new, give live runs `graceMs` to finish, then
   * hand the rest back — each is declared lost now, under the lock, so its step is
   * re-queued at once and another process claims it (instead of waiting for the lease to
   * expire) — and stop. Returns how many runs finished and how many were handed back.
   */
  async drain({ graceMs }: { graceMs: number }): Promise<{ finished: number; handedBack: number }> {
    const drained = await this.worker.drain({ graceMs });
    await this.stop();
    return drained;
  }

  /** Resolves when no run started by this process is live (tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ─── Entry points ──────────────────────────────────────────────────────────

  /** A plan submitted directly (API, automation): validated exactly like the commander's. */
  async submitPlan(input: PlanSubmission): Promise<PlanDTO> {
    // an oversized plan is refused before it takes the conversation's lock
    assertPlanSize({ raw: input.raw, limits: this.context.config.planLimits });
    // named up front, so the unit can run optimistically: its one statement inserts the
    // plan and dispatches its first steps (and refuses a conversation that is not there)
    const planId = input.planId ?? randomUUID();
    const work = async (tx: Tx, uow: UnitOfWork) => {
      const { dto, saved } = await createPlan(this.context, tx, uow, {
        planId,
        conversationId: input.conversationId,
        raw: input.raw,
        request: input.request,
        createdByUserId: input.userId,
        submissionHash: input.submissionHash,
        announce: (spec) =>
          insertMessage(this.context, uow, {
            conversationId: input.conversationId,
            author: { kind: "system" },
            kind: "plan",
            ...notices.planSubmitted(spec.title, spec.steps.length),
            planId,
          }),
      });
      // the batch has not written the steps yet: describe the plan from what reconcile decided
      return saved ? { ...dto, status: saved.state.status, steps: saved.state.steps.map((step) => stepDTO(saved, step)) } : dto;
    };
    try {
      return await this.inConversation(input.conversationId, work, { planId, created: true });
    } catch (error) {
      if (isRowNotFound(error)) throw notFound("conversation");
      throw error;
    }
  }

  /** An admin created or edited an agent, or an owner added or removed one: this process stops using its cached copy now. */
  agentsChanged(): void {
    this.context.agents.invalidate();
  }

  // ─── Inside a unit: what the application's commands (services/) ask of the engine ───

  /** The agents of the workspace and of each conversation (cached; see agent-directory.ts). */
  get agents(): AgentDirectory {
    return this.context.agents;
  }

  /** Queues a run in the unit's write batch; a worker with room claims it. */
  async queueRun(tx: Tx, uow: UnitOfWork, run: NewRun): Promise<void> {
    await createRun(this.context, tx, uow, run);
  }

  /** Queues a system or agent message in the unit's write batch and emits it. */
  queueMessage(uow: UnitOfWork, message: NewMessage): MessageDTO {
    return insertMessage(this.context, uow, message);
  }

  /**
   * Feeds one event to a plan's reconcile: the plan as it left it, and `ignored`, the
   * core's reason when the event did not apply. Null: there is no such plan.
   */
  applyPlanEvent(tx: Tx, uow: UnitOfWork, input: { planId: string; event: PlanEvent; bumpVersion?: boolean }) {
    return applyPlanEvent(this.context, tx, uow, input);
  }

  /** A member's re-run of an ended plan: a new plan from its spec, linked to it (plan-rerun.ts). */
  rerunPlan(tx: Tx, uow: UnitOfWork, input: { planId: string; userId: string; byName: string }): Promise<PlanDTO> {
    return rerunPlan(this.context, tx, uow, input);
  }

  /** Cancels a queued or running run of no plan; its final state goes out as a run update. */
  async cancelLoneRun(tx: Tx, uow: UnitOfWork, runId: string): Promise<void> {
    const endedAt = new Date(this.context.clock.now());
    await announceCancelledRun(tx, uow, runId, endedAt);
    uow.batch.add(sqlWrites.cancelRun({ id: runId, endedAt }));
    uow.runsToCancel.push(runId);
  }

  /**
   * An admin disabled an agent: its runs waiting in the queue never start; a step's run
   * fails its step with `reason` (agent-withdrawal.ts). Returns how many were withdrawn.
   */
  withdrawQueuedRuns(input: { agentId: string; handle: string; reason: string }): Promise<number> {
    return withdrawQueuedRuns(this.context, (conversationId, work) => this.inConversation(conversationId, work), input);
  }

  /** The request a blocked run was started with, to resume its session with. */
  resumeRequest(tx: Tx, run: Parameters<typeof storedRequest>[1]) {
    return storedRequest(tx, run);
  }

  /** The engine's clock. */
  now(): Date {
    return new Date(this.context.clock.now());
  }

  // ─── Internals ─────────────────────────────────────────────────────────────

  /**
   * The one way to change a conversation (see units.ts): `plan` names the plan (and
   * run) the work will reconcile, which lets it run optimistically.
   */
  inConversation<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    return this.units.run(conversationId, work, plan);
  }

  /** how units of work ran (optimistic, conflicts, locked) */
  get stats() {
    return this.units.stats;
  }

  /** runs started before their unit committed, and how many were confirmed or abandoned */
  get earlyStarts() {
    return { ...this.worker.earlyStarts };
  }

  private afterCommit(uow: UnitOfWork, committed: CommittedUnit): void {
    for (const plan of uow.plans.values()) this.context.plans.set(plan);
    if (committed.published.length > 0) this.context.publisher.publish(committed.published, { othersTold: committed.othersTold });
    traceEndedPlans(this.context.prisma, committed.published);
    // losers running here first: their abort reports what they spent
    if (uow.hedgeLosers.length > 0) {
      const live = new Set(this.worker.liveRunIds);
      this.hedging.lost(uow.hedgeLosers.filter((runId) => live.has(runId)));
    }
    for (const runId of uow.runsToCancel) this.worker.abort(runId);
    for (const tick of uow.ticks) this.scheduleTick(tick);
    // a unit that wrote without the writing hook (events alone) claimed nothing
    this.worker.afterCommit(uow.runsCreated, committed.claimed, this.epochAtWrite.get(uow) ?? this.worker.livenessEpoch);
  }

  /**
   * Claims queued runs of every pool with room for this process (a freed slot
   * somewhere, the sweep, start-up); see run-worker.ts.
   */
  claimSoon(): void {
    this.worker.claimSoon();
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.context.logger.error("[executor]", error));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private scheduleTick(input: { conversationId: string; planId: string; at: number }): void {
    if (this.stopped) return;
    const existing = this.timers.get(input.planId);
    if (existing && existing.at <= input.at) return;
    existing?.cancel();
    const timer = this.context.clock.setTimer(input.at, () => {
      this.timers.delete(input.planId);
      this.track(this.tick(input));
    });
    this.timers.set(input.planId, { at: input.at, cancel: () => timer.cancel() });
  }

  /** Re-computes readiness of one plan (retry timers, freed pool slots, recovery). */
  tick(input: { conversationId: string; planId: string }): Promise<void> {
    return this.inConversation(
      input.conversationId,
      async (tx, uow) => {
        await reconcilePlan(this.context, tx, uow, { planId: input.planId, event: { type: "tick" } });
      },
      { planId: input.planId },
    );
  }
}
