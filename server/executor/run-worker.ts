/**
 * This process's side of the run queue (run-queue.ts): what it may claim, starting
 * what it claimed, running each run to its end, and declaring runs lost — those of a
 * dead process (found by the lease sweep) and its own when it hands them back at a
 * graceful stop. What a lost run means is the core's (core/run-outcome.ts).
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { LOST_RUN_ERROR, lostRunVerdict } from "../core/run-outcome.ts";
import type { ClaimedRun, ClaimRequest } from "../adapters/prisma/write-batch.ts";
import type { ExecutorContext } from "./context.ts";
import type { AgentRunResult } from "./ports.ts";
import { createRun, runDTO, type RunLaunch } from "./run-records.ts";
import { runKindOf } from "../core/types.ts";
import { finishRun, type RunLogEntry } from "./run-lifecycle.ts";
import { claimRuns, loadLaunch, runContextOf, storedRequest } from "./run-queue.ts";
import { reconcilePlan } from "./plan-effects.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { PendingEvent } from "../adapters/prisma/event-log.ts";
import { instrumentRunner } from "../ops/run-telemetry.ts";

type Tx = Prisma.TransactionClient;

/** What the worker needs from the executor that owns it. */
/** How long after a retry's notBefore this process claims it. */
const NOT_BEFORE_MARGIN_MS = 20;

export interface RunWorkerHost {
  inConversation<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan?: { planId: string; runId?: string },
  ): Promise<T>;
  appendEvents(conversationId: string, events: PendingEvent[]): Promise<void>;
  /** keeps a promise in the executor's in-flight set (stop and idle wait for it) */
  track(promise: Promise<unknown>): void;
  stopped(): boolean;
}

export class RunWorker {
  private readonly liveRuns = new Map<string, AbortController>();
  /** runs created here and still queued: claiming one here needs no reads */
  private readonly launches = new Map<string, RunLaunch>();
  /** claimed runs whose launch is still being read */
  private starting = 0;
  /** a claim is running; `claimAgain` asks for one more pass after it */
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  /** this process's own slots, not the pools, last limited a claim: a run ending here should claim again */
  private slotBound = false;
  /** shutting down: claims nothing new, lets live runs finish, then hands the rest back */
  private draining = false;

  constructor(
    private readonly context: ExecutorContext,
    private readonly host: RunWorkerHost,
  ) {}

  get liveRunIds(): string[] {
    return [...this.liveRuns.keys()];
  }

  abort(runId: string): void {
    this.liveRuns.get(runId)?.abort();
  }

  abortAll(): void {
    for (const controller of this.liveRuns.values()) controller.abort();
  }

  /** What this process may claim now: a worker's free slots (a web node claims nothing). */
  claimRequest(): ClaimRequest | null {
    const { role, workerSlots, leaseMs, modelConcurrency } = this.context.config;
    if (this.host.stopped() || this.draining || role === "web") return null;
    const max = workerSlots - this.liveRuns.size - this.starting;
    if (max <= 0) this.slotBound = true;
    return max > 0 ? { owner: this.context.instanceId, leaseMs, max, modelLimits: modelConcurrency } : null;
  }

  /** Runs a committed unit created (kept so claiming them here costs no reads) and the ones it claimed. */
  afterCommit(created: RunLaunch[], claimed: ClaimedRun[]): void {
    for (const launch of created) {
      this.rememberLaunch(launch);
      // a retry in backoff: claim when it is due (the sweep claims it if this process is gone by then)
      // (a little after it: a timer may fire a millisecond early, and the database's clock decides)
      if (launch.notBefore) this.context.clock.setTimer(launch.notBefore.getTime() + NOT_BEFORE_MARGIN_MS, () => this.claimSoon());
    }
    const announced = new Set(created.map((launch) => launch.request.runId));
    this.startClaimed(claimed, announced);
  }

  private rememberLaunch(launch: RunLaunch): void {
    this.launches.set(launch.request.runId, launch);
    // a launch another process claimed is never asked for here: keep the newest only
    if (this.launches.size > 2_000) this.launches.delete(this.launches.keys().next().value!);
  }

  /**
   * Claims queued runs of every pool with room for this process (a freed slot
   * somewhere, the sweep, start-up). Coalesced: one claim at a time, and one more
   * pass if asked again meanwhile.
   */
  claimSoon(): void {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    const pass = async () => {
      do {
        this.claimAgain = false;
        const request = this.claimRequest();
        if (!request) return;
        const claimed = await claimRuns(this.context.prisma, request);
        this.slotBound = claimed.length === request.max;
        this.startClaimed(claimed, new Set());
      } while (this.claimAgain && !this.host.stopped());
    };
    this.claiming = pass()
      .catch((error) => this.context.logger.warn("[run-queue]", error))
      .finally(() => {
        this.claiming = null;
      });
    this.host.track(this.claiming);
  }

  /** Starts runs claimed for this process; those no unit announced get their `running` event. */
  private startClaimed(claimed: ClaimedRun[], announced: ReadonlySet<string>): void {
    for (const run of claimed) {
      const known = this.launches.get(run.id);
      this.launches.delete(run.id);
      this.starting += 1;
      this.host.track(
        (async () => {
          let launch: RunLaunch | null;
          try {
            launch = known ? { ...known, startedAt: new Date(run.startedAt) } : await loadLaunch(this.context, run.id);
            if (launch && !announced.has(run.id)) await this.announceRunning(launch);
          } finally {
            this.starting -= 1;
          }
          if (launch) await this.executeRun(launch);
        })(),
      );
    }
  }

  /** A run that waited in the queue tells its conversation it started. */
  private announceRunning(launch: RunLaunch): Promise<void> {
    return this.host.appendEvents(launch.request.conversationId, [
      { type: "run-updated", payload: { run: runDTO(launch, { status: "running", endedAt: null, error: null, usage: null }) } },
    ]);
  }

  private async executeRun(launch: RunLaunch): Promise<void> {
    if (this.host.stopped()) return;
    const { runId, conversationId } = launch.request;
    const controller = new AbortController();
    this.liveRuns.set(runId, controller);
    const logs: RunLogEntry[] = [];
    try {
      let result: AgentRunResult;
      try {
        const runner = instrumentRunner(this.context.runner, this.context.prisma, launch);
        result = await runner.run(
          { ...launch.request, signal: controller.signal },
          {
            textDelta: (delta) => this.context.publisher.runDelta(conversationId, runId, delta),
            log: (entry) => logs.push(entry),
            status: (text) => this.context.publisher.runStatus?.(conversationId, runId, text),
            resetText: (text) => this.context.publisher.runDelta(conversationId, runId, text, { reset: true }),
          },
        );
      } catch (error) {
        result = {
          kind: "failed" as const,
          transient: false,
          reason: `the agent runtime crashed: ${error instanceof Error ? error.message : String(error)}`,
          usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
        };
      }
      if (controller.signal.aborted || this.host.stopped()) return;
      await this.host.inConversation(
        conversationId,
        (tx, uow) => finishRun(this.context, tx, uow, { launch, result, logs }),
        launch.planId ? { planId: launch.planId, runId } : undefined,
      );
    } finally {
      this.liveRuns.delete(runId);
      // a slot of this process freed up while runs may wait for one (the pools' own
      // slots were handed on by the unit that recorded the end)
      if (this.slotBound && !this.host.stopped()) this.claimSoon();
    }
  }

  /**
   * A graceful stop: claim nothing new, give live runs `graceMs` to finish, then hand
   * the rest back — each is declared lost now, under the lock, so its step is re-queued
   * at once and another process claims it (instead of waiting for the lease to expire).
   */
  async drain({ graceMs }: { graceMs: number }): Promise<{ finished: number; handedBack: number }> {
    this.draining = true;
    const live = this.liveRuns.size;
    const deadline = this.context.clock.now() + graceMs;
    while (this.liveRuns.size > 0 && this.context.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const remaining = [...this.liveRuns.keys()];
    const owned = remaining.length
      ? await this.context.prisma.run.findMany({
          where: { id: { in: remaining }, status: "running" },
          select: { id: true, conversationId: true },
        })
      : [];
    // stop them here first: a run still live on this process is never declared lost
    for (const runId of remaining) this.liveRuns.get(runId)?.abort();
    while (this.liveRuns.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const run of owned)
      await this.recordLost({ conversationId: run.conversationId, runId: run.id, reason: "handed back: its process shut down" });
    return { finished: live - remaining.length, handedBack: owned.length };
  }

  /** A run whose process died: a transient failure of its step, decided under the lock. */
  async runLost(input: { conversationId: string; runId: string }): Promise<void> {
    await this.recordLost(input);
    // the lost run's slot is free now: hand it to whoever waits in its pool
    this.claimSoon();
  }

  private recordLost(input: { conversationId: string; runId: string; reason?: string }): Promise<void> {
    return this.host.inConversation(input.conversationId, async (tx, uow) => {
      const run = await tx.run.findUnique({ where: { id: input.runId }, include: { step: true, agent: true } });
      // a queued run has no owner to lose: it waits to be claimed
      if (!run || run.status !== "running") return;
      const now = new Date(this.context.clock.now());
      // Re-checked under the lock: only a lease that is really gone is taken over.
      if (run.leaseOwner === this.context.instanceId && this.liveRuns.has(run.id)) return;
      await tx.run.update({
        where: { id: run.id },
        data: { status: "lost", endedAt: now, error: input.reason ?? LOST_RUN_ERROR, leaseOwner: null },
      });
      const kind = runKindOf(run);
      const verdict = lostRunVerdict({
        kind,
        stepIndex: run.planId && run.step ? run.step.index : null,
        attempt: run.attempt,
        hasAgent: run.agent !== null,
      });
      switch (verdict.kind) {
        case "tell-plan":
          await reconcilePlan(this.context, tx, uow, {
            planId: run.planId!,
            event: { type: "run-lost", stepIndex: verdict.stepIndex, runId: run.id },
          });
          return;
        case "redispatch": {
          await createRun(this.context, tx, uow, {
            id: randomUUID(),
            conversationId: run.conversationId,
            agent: run.agent!,
            kind,
            input: run.input,
            request: await storedRequest(tx, run),
            ...runContextOf(run),
            attempt: verdict.attempt,
            triggerMessageId: run.triggerMessageId,
          });
          return;
        }
        case "none":
          return;
        default:
          return verdict satisfies never;
      }
    });
  }
}
