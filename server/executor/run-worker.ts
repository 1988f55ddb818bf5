/**
 * This process's side of the run queue (run-queue.ts): what it may claim, starting
 * what it claimed, running each run to its end, and declaring runs lost — those of a
 * dead process (found by the lease sweep) and its own when it hands them back at a
 * graceful stop. What a run shows while it runs is run-sink.ts's; how a refused result or
 * a lost run is recorded, refused-and-lost-runs.ts's.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import type { ClaimedRun, ClaimRequest } from "../adapters/prisma/write-batch.ts";
import type { ExecutorContext } from "./context.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import { runDTO, type RunLaunch } from "./run-records.ts";
import { finishRun, type RunLogEntry } from "./run-lifecycle.ts";
import { claimRuns, loadLaunch } from "./run-queue.ts";
import { recordLostRunsEachIfNeeded, runIdsByConversation, storeRunResult } from "./refused-and-lost-runs.ts";
import { liveRunSink } from "./run-sink.ts";
import { postStoppedText } from "./stopped-text.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { UnitPlan } from "./units.ts";
import type { PendingEvent } from "../adapters/prisma/event-log.ts";
import { instrumentRunner } from "./run-telemetry.ts";
import { FAIR_SHARE_DEFER_MS, fairShareOf } from "./fair-share.ts";
import type { Hedging } from "./hedging.ts";

type Tx = Prisma.TransactionClient;

/** How long after a retry's notBefore this process claims it. */
const NOT_BEFORE_MARGIN_MS = 20;

/** What the worker needs from the executor that owns it. */
export interface RunWorkerHost {
  inConversation<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T>;
  appendEvents(conversationId: string, events: PendingEvent[]): Promise<void>;
  /** keeps a promise in the executor's in-flight set (stop and idle wait for it) */
  track(promise: Promise<unknown>): void;
  stopped(): boolean;
  /** races straggling step runs (hedging.ts): told when a run goes live or is recorded; knows the runs that lost */
  hedging?: Pick<Hedging, "watch" | "recorded" | "isLoser">;
  /** a run was stopped before its end (aborted, or cancelled before its result was stored): what it spent is billed */
  runStopped(launch: RunLaunch, result: AgentRunResult): void;
}

/** A run started early (see startEarly): running its preparation until its unit commits. */
interface EarlyRun {
  controller: AbortController;
  /** `startedAt`: claimed here, from then on; null: not this process's run */
  settle(outcome: { startedAt: Date } | null): void;
}

export class RunWorker {
  private readonly liveRuns = new Map<string, AbortController>();
  /** runs started early whose unit has not committed yet */
  private readonly early = new Map<string, EarlyRun>();
  /** runs started early, and how they settled */
  readonly earlyStarts = { started: 0, confirmed: 0, abandoned: 0 };
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
  /** this process's part of the runs running across the processes that run agents (fair-share.ts) */
  private fairShare = Number.POSITIVE_INFINITY;
  /**
   * How often this process lost its liveness lock. A claim asked for before a loss may
   * commit after it, when others may already have taken this process's runs over: its
   * runs are not started then (startClaimed), or a run could run twice at once.
   */
  private livenessLosses = 0;

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
    for (const run of this.early.values()) run.controller.abort();
  }

  /** The mark a claim is asked under: runs it claims start only if no liveness loss came after it. */
  get livenessEpoch(): number {
    return this.livenessLosses;
  }

  /** This process's liveness lock may be lost: stops every live run, and no claim asked before now starts its runs. */
  livenessLost({ timeoutMs }: { timeoutMs: number }): Promise<void> {
    this.livenessLosses += 1;
    return this.stopAll({ timeoutMs });
  }

  /** Stops every live run and resolves once they have all ended here (or after `timeoutMs`). */
  async stopAll({ timeoutMs }: { timeoutMs: number }): Promise<void> {
    this.abortAll();
    const deadline = this.context.clock.now() + timeoutMs;
    while ((this.liveRuns.size > 0 || this.early.size > 0) && this.context.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Whether this process may take runs now: not on a web node, not while stopping, and (PostgreSQL) while it holds its liveness lock. */
  private mayClaim(): boolean {
    const liveness = this.context.liveness;
    return !this.host.stopped() && !this.draining && this.context.config.role !== "web" && (!liveness || liveness.held);
  }

  /** What the cluster runs now (leases.ts samples it every second): sets this process's fair share. */
  setClusterLoad(load: { running: number; workers: number }): void {
    this.fairShare = fairShareOf(load);
  }

  /**
   * What this process may claim now: a worker's free slots (a web node claims nothing).
   * `unit`: for a unit's own statement, which claims only within the fair share. The runs
   * whose end it records hold nothing once it commits, and its own early starts are what
   * it claims for: counting them as held made a chain's next run wait for a NOTIFY and
   * another process's claim (14 + 22 ms a hop on PostgreSQL) instead of riding the statement.
   */
  claimRequest(options: { unit?: { ending: readonly string[]; created: readonly RunLaunch[] } } = {}): ClaimRequest | null {
    const { workerSlots, leaseMs, modelConcurrency } = this.context.config;
    if (!this.mayClaim()) return null;
    const unit = options.unit;
    const ending = unit ? unit.ending.filter((runId) => this.liveRuns.has(runId)).length : 0;
    const live = this.liveRuns.size + this.starting - ending;
    const free = workerSlots - live;
    const ownEarly = unit ? unit.created.filter((launch) => this.early.has(launch.request.runId)).length : 0;
    const max = unit ? Math.min(free, this.fairShare - live - (this.early.size - ownEarly)) : free;
    if (max <= 0) this.slotBound = true;
    return max > 0 ? { owner: this.context.instanceId, leaseMs, max, modelLimits: modelConcurrency } : null;
  }

  /**
   * Starts the runs a unit created before its statement is written, so that their
   * preparation (the agent runtime building the model call) overlaps the statement: the
   * runner holds everything that leaves the process until `afterCommit` confirms the run
   * was claimed here (RunRequest.confirmed). Only runs this process may claim at once: not
   * a retry in backoff, not on a node that claims nothing, never past this worker's slots.
   */
  startEarly(created: RunLaunch[], ending: readonly string[] = []): void {
    const { workerSlots } = this.context.config;
    if (!this.context.earlyStart || !this.mayClaim()) return;
    // one run's preparation per turn of the event loop: a unit that dispatched many (a
    // plan's roots, a batch of results) must not hold sockets and requests for all of them
    let turn = Promise.resolve();
    for (const launch of created) {
      // the runs this unit ends hold no slot once it commits
      const held = this.liveRuns.size + this.starting + this.early.size - ending.filter((runId) => this.liveRuns.has(runId)).length;
      if (held >= workerSlots || held >= this.fairShare) return;
      if (launch.notBefore) continue;
      const controller = new AbortController();
      let settle!: EarlyRun["settle"];
      const settled = new Promise<{ startedAt: Date } | null>((resolve) => (settle = resolve));
      this.early.set(launch.request.runId, { controller, settle });
      this.earlyStarts.started++;
      // after the statement has gone out (its message is posted within this turn), not before it
      turn = turn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
      this.host.track(turn.then(() => this.executeRun(launch, controller, settled)));
    }
  }

  /** The unit that created these runs did not commit: their early starts end unseen. */
  abandonEarly(created: RunLaunch[]): void {
    for (const launch of created) this.settleEarly(launch.request.runId, null);
  }

  private settleEarly(runId: string, claim: { startedAt: Date } | null): boolean {
    const run = this.early.get(runId);
    if (!run) return false;
    this.early.delete(runId);
    // stopped before its claim committed (a loss, a shutdown): its execution may have returned
    // already, and nothing would take it out of liveRuns again (its lease renewed for good)
    const outcome = run.controller.signal.aborted ? null : claim;
    if (outcome) {
      this.earlyStarts.confirmed++;
      this.liveRuns.set(runId, run.controller);
    } else {
      this.earlyStarts.abandoned++;
      run.controller.abort();
    }
    run.settle(outcome);
    return true;
  }

  /**
   * Runs a committed unit created (kept so claiming them here costs no reads) and the ones
   * it claimed; `epoch`: livenessEpoch when the unit began its write (and asked its claim).
   */
  afterCommit(created: RunLaunch[], claimed: ClaimedRun[], epoch: number): void {
    // runs started early that this statement claimed run on (none across a liveness loss:
    // startClaimed declares them lost), the rest start now
    const acrossLoss = epoch !== this.livenessLosses;
    const confirmed = new Set<string>();
    const toStart = claimed.filter((run) => {
      if (acrossLoss || !this.settleEarly(run.id, { startedAt: new Date(run.startedAt) })) return true;
      confirmed.add(run.id);
      return false;
    });
    for (const launch of created) {
      if (confirmed.has(launch.request.runId)) continue;
      // started early, but its claim went elsewhere (a full pool, an older waiter): it waits in the queue
      this.settleEarly(launch.request.runId, null);
      this.rememberLaunch(launch);
      // a retry in backoff: claim when it is due (the sweep claims it if this process is gone by then)
      // (a little after it: a timer may fire a millisecond early, and the database's clock decides)
      if (launch.notBefore) this.context.clock.setTimer(launch.notBefore.getTime() + NOT_BEFORE_MARGIN_MS, () => this.claimSoon());
    }
    const announced = new Set(created.map((launch) => launch.request.runId));
    this.startClaimed(toStart, announced, epoch);
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
    if (this.liveRuns.size + this.starting + this.early.size >= this.fairShare) {
      // at its fair share: others with less to do claim first; this process still claims what they leave
      if (this.deferredClaim) return;
      this.deferredClaim = setTimeout(() => {
        this.deferredClaim = null;
        this.claimNow();
      }, FAIR_SHARE_DEFER_MS);
      this.deferredClaim.unref?.();
      return;
    }
    this.claimNow();
  }

  private deferredClaim: ReturnType<typeof setTimeout> | null = null;

  private claimNow(): void {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    const pass = async () => {
      do {
        this.claimAgain = false;
        const epoch = this.livenessLosses;
        const request = this.claimRequest();
        if (!request) return;
        const claimed = await claimRuns(this.context.prisma, request);
        this.slotBound = claimed.length === request.max;
        this.startClaimed(claimed, new Set(), epoch);
      } while (this.claimAgain && !this.host.stopped());
    };
    this.claiming = pass()
      .catch((error) => this.context.logger.warn("[run-queue]", error))
      .finally(() => {
        this.claiming = null;
      });
    this.host.track(this.claiming);
  }

  /**
   * Starts runs claimed for this process; those no unit announced get their `running`
   * event. Claimed under `epoch`: if the liveness lock was lost since, none starts (others
   * may have taken them over meanwhile); they are declared lost instead, so their steps
   * retry at once, wherever a process may claim them.
   */
  private startClaimed(claimed: ClaimedRun[], announced: ReadonlySet<string>, epoch: number): void {
    if (claimed.length > 0 && epoch !== this.livenessLosses) {
      for (const [conversationId, runIds] of runIdsByConversation(claimed)) {
        this.host.track(
          this.runsLost({ conversationId, runIds }).catch((error) =>
            this.context.logger.warn("[run-queue] could not hand back runs claimed across a liveness loss", error),
          ),
        );
      }
      return;
    }
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
          } catch (error) {
            // not readable now (a connection dropped): handed back, not left to its lease
            this.context.logger.warn("[run-queue] could not start a claimed run; handing it back", { runId: run.id }, error);
            await this.runsLost({ conversationId: run.conversationId, runIds: [run.id] });
            return;
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

  /**
   * Runs one launch to its end and records the result. `early`: the run was started
   * before its unit committed (startEarly); it settles with the claim's start, or null
   * when the run is not this process's, and until then nothing of the run is shown.
   */
  private async executeRun(
    launch: RunLaunch,
    controller = new AbortController(),
    early?: Promise<{ startedAt: Date } | null>,
  ): Promise<void> {
    const { runId, conversationId } = launch.request;
    if (this.host.stopped() || controller.signal.aborted) {
      // abandoned, or stopped, before it began: a run confirmed meanwhile is live no more
      if (this.liveRuns.get(runId) === controller) this.liveRuns.delete(runId);
      return;
    }
    if (!early) this.liveRuns.set(runId, controller);
    const confirmed = early?.then((outcome) => outcome !== null);
    // the launch as claimed: its start is the claim's
    const claimed = early?.then((outcome) => outcome && { ...launch, startedAt: outcome.startedAt });
    const logs: RunLogEntry[] = [];
    const sink = liveRunSink({ publisher: this.context.publisher, conversationId, runId, confirmed, logs });
    const runner = instrumentRunner(this.context.runner, this.context.prisma, launch, claimed);
    const unwatch = this.host.hedging?.watch(launch, confirmed);
    try {
      let result: AgentRunResult;
      try {
        result = await runner.run({ ...launch.request, signal: controller.signal, ...(confirmed ? { confirmed } : {}) }, sink);
      } catch (error) {
        result = {
          kind: "failed" as const,
          transient: false,
          reason: `the agent runtime crashed: ${error instanceof Error ? error.message : String(error)}`,
          usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
        };
      }
      // a run started early reports nothing before its confirmation; one not confirmed is aborted by then
      if (confirmed) await confirmed;
      if (controller.signal.aborted || this.host.stopped()) {
        // nothing more of it is stored here (a stop records it elsewhere): its line says how it ended
        runner.recorded({ stored: "as-reported" });
        await this.afterStop(launch, result, { text: sink.text(), shown: !confirmed || (await confirmed) });
        return;
      }
      // runs of a conversation that end while it is busy share one statement (units.ts)
      let settledElsewhere = false;
      const record = async () => {
        const written = await this.host.inConversation(
          conversationId,
          (tx, uow) => finishRun(this.context, tx, uow, { launch, result, logs }),
          launch.planId ? { planId: launch.planId, runId, batch: true } : undefined,
        );
        settledElsewhere = !written;
      };
      const stored = await storeRunResult(this.context, this.host, { launch, record, stopped: () => this.host.stopped() });
      // a result nobody stored says so in its "run ended" line, not "ok"
      runner.recorded(stored.stored === "as-reported" && settledElsewhere ? { stored: "settled-elsewhere" } : stored);
      // cancelled while its answer was on its way (a Stop, a hedge it lost): billed as stopped
      if (stored.stored === "as-reported" && settledElsewhere) await this.afterStop(launch, result, { text: sink.text(), shown: true });
      else if (stored.stored === "as-reported") this.host.hedging?.recorded(launch, result);
    } finally {
      unwatch?.();
      this.liveRuns.delete(runId);
      // a slot of this process freed up while runs may wait for one (the pools' own
      // slots were handed on by the unit that recorded the end)
      if (this.slotBound && !this.host.stopped()) this.claimSoon();
    }
  }

  /**
   * A run stopped before its end is billed (runStopped), and what it had written stays in
   * the chat, marked stopped — not on shutdown (it is handed back), not for a run its
   * viewers never saw (started early, not confirmed), and not for a hedge's loser: nobody
   * stopped it, and its twin's answer is the step's.
   */
  private async afterStop(launch: RunLaunch, result: AgentRunResult, written: { text: string; shown: boolean }): Promise<void> {
    const lostHedge = this.host.hedging?.isLoser(launch.request.runId) ?? false;
    this.host.runStopped(launch, result);
    if (lostHedge || this.host.stopped() || !written.shown || written.text.trim() === "") return;
    await this.host.inConversation(launch.request.conversationId, (tx, uow) =>
      postStoppedText(this.context, tx, uow, { launch, text: written.text }),
    );
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
    for (const [conversationId, runIds] of runIdsByConversation(owned))
      await this.recordLost({ conversationId, runIds, reason: "handed back: its process shut down" });
    return { finished: live - remaining.length, handedBack: owned.length };
  }

  /**
   * Runs of one conversation whose process died: a transient failure of each one's
   * step, decided in one unit under the lock. Resolves to the ids declared lost.
   */
  async runsLost(input: { conversationId: string; runIds: string[] }): Promise<string[]> {
    const lost = await this.recordLost(input);
    // the lost runs' slots are free now: hand them to whoever waits in their pools
    if (lost.length > 0) this.claimSoon();
    return lost;
  }

  private recordLost(input: { conversationId: string; runIds: string[]; reason?: string }): Promise<string[]> {
    return recordLostRunsEachIfNeeded(this.context, this.host, { ...input, liveHere: (runId) => this.liveRuns.has(runId) });
  }
}
