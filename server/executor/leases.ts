/**
 * Durability and the liveness backstop. A run is owned by the process that claimed
 * it through a lease that process keeps renewing. At start-up, and in every sweep,
 * runs whose lease ran out are declared lost (a transient failure of their step, so
 * the plan retries them once within budget). Everything else a plan can wait for is
 * in the database too — a queued run waits for a pool slot, a pending step for its
 * `retryAt` — and the sweep, on every process, acts on whatever nobody woke: it
 * claims queued runs that have room, ticks plans whose retry time has come, and
 * ticks running plans that have no live run at all.
 *
 * On PostgreSQL a dead process is found faster than its lease runs out: every process
 * holds a liveness lock (db/liveness.ts) that PostgreSQL frees when its session ends.
 * Every DEAD_OWNER_CHECK_MS each process reads which processes own running runs; every
 * OWNER_WATCH_MS it asks, on its own lock connection (no pool to wait for), whether one
 * of those owners lost its lock, and if so takes that owner's runs over at once, in one
 * unit per conversation. One process takes a given owner's runs over
 * (Liveness.takingOver); the others do not queue the same units behind it on the
 * conversation's lock. A frozen process keeps its lock, so only its lease (still renewed, still checked)
 * can hand its runs on. When this process's own liveness connection drops, others may
 * take its runs over at any moment, so it stops every live run at once and claims
 * nothing until the lock is back; then it declares whichever of its runs are still
 * `running` lost itself, so their steps are retried right away.
 */
import type { ExecutorContext } from "./context.ts";
import { recordLeaseTakeover } from "../observability/instruments.ts";
import { runIdsByConversation } from "./refused-and-lost-runs.ts";

/** How often each process reads which processes own running runs (and the cluster's load). */
export const DEAD_OWNER_CHECK_MS = 1_000;
/**
 * How often each process asks whether an owner it knows of lost its liveness lock: one
 * read of pg_locks (memory, no table) on the lock connection, cheap enough to ask often,
 * so that detection is a small part of the 3 s a takeover may take on a loaded machine.
 */
const OWNER_WATCH_MS = 250;

interface LeaseHooks {
  liveRunIds(): string[];
  abortRun(runId: string): void;
  /** stops every live run of this process (its liveness lock may be lost); resolves once they have ended */
  abortAll(): Promise<void>;
  /** declares lost, in one unit, running runs of one conversation; resolves to the ids it declared lost */
  runsLost(input: { conversationId: string; runIds: string[] }): Promise<string[]>;
  tickPlan(input: { conversationId: string; planId: string }): Promise<void>;
  /** claim queued runs this process has room for */
  claim(): void;
  /** what the whole cluster runs now: runs running, and live processes that run agents */
  clusterLoad(load: { running: number; workers: number }): void;
}

export class LeaseKeeper {
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private deadOwnerCheck: ReturnType<typeof setInterval> | null = null;
  private ownerWatch: ReturnType<typeof setInterval> | null = null;
  /** the other processes that owned running runs at the last check: those the watch asks about */
  private knownOwners: string[] = [];
  private sweeping = false;
  private checkingOwners = false;
  /** the stop of this process's runs after its liveness lock was lost */
  private stoppingRuns: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: ExecutorContext,
    private readonly hooks: LeaseHooks,
  ) {}

  /** Takes over orphaned runs and resumes every unfinished plan. */
  async recover(): Promise<void> {
    await this.takeOverExpired({ everyOrphan: this.context.config.singleProcess });
    // a restarted process's predecessor (and any other dead one) is not waited for
    await this.takeOverDeadOwners();
    const plans = await this.context.prisma.plan.findMany({
      where: { status: { in: ["running", "paused"] } },
      select: { id: true, conversationId: true },
    });
    for (const plan of plans) await this.hooks.tickPlan({ conversationId: plan.conversationId, planId: plan.id });
  }

  start(): void {
    const { leaseMs, sweepMs } = this.context.config;
    this.heartbeat = setInterval(
      () => void this.renew().catch((error) => this.context.logger.warn("[leases]", error)),
      Math.max(1000, leaseMs / 3),
    );
    this.heartbeat.unref?.();
    this.sweeper = setInterval(() => void this.sweep(), sweepMs);
    this.sweeper.unref?.();
    const liveness = this.context.liveness;
    if (!liveness) return;
    this.deadOwnerCheck = setInterval(() => void this.takeOverDeadOwners(), DEAD_OWNER_CHECK_MS);
    this.deadOwnerCheck.unref?.();
    this.ownerWatch = setInterval(() => void this.watchOwners(), OWNER_WATCH_MS);
    this.ownerWatch.unref?.();
    liveness.onChange((held) => {
      if (!held) this.stoppingRuns = this.hooks.abortAll();
      else void this.afterLivenessRegained();
    });
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.deadOwnerCheck) clearInterval(this.deadOwnerCheck);
    if (this.ownerWatch) clearInterval(this.ownerWatch);
    this.heartbeat = this.sweeper = this.deadOwnerCheck = this.ownerWatch = null;
  }

  /**
   * Runs whose owner's liveness lock nobody holds: that process is gone (or lost its
   * connection, and stopped them), so they are declared lost now. Never two passes at once.
   */
  async takeOverDeadOwners(): Promise<void> {
    const { liveness, prisma, instanceId } = this.context;
    if (!liveness?.held || this.checkingOwners) return;
    this.checkingOwners = true;
    try {
      const [owners, workers] = await Promise.all([
        prisma.run.groupBy({ by: ["leaseOwner"], where: { status: "running", leaseOwner: { not: null } }, _count: { _all: true } }),
        liveness.liveWorkers(),
      ]);
      this.hooks.clusterLoad({ running: owners.reduce((sum, row) => sum + row._count._all, 0), workers });
      const others = owners.map((row) => row.leaseOwner!).filter((owner) => owner !== instanceId);
      this.knownOwners = others;
      await this.takeOverRunsOfAll(await liveness.deadOwners(others));
    } catch (error) {
      this.context.logger.warn("[leases] could not check for dead processes", error);
    } finally {
      this.checkingOwners = false;
    }
  }

  /** Between checks: whether an owner known to own running runs lost its lock; if so, the takeover now. */
  private async watchOwners(): Promise<void> {
    const liveness = this.context.liveness;
    if (!liveness?.held || this.checkingOwners || this.knownOwners.length === 0) return;
    this.checkingOwners = true;
    try {
      await this.takeOverRunsOfAll(await liveness.deadOwners(this.knownOwners));
    } catch (error) {
      this.context.logger.warn("[leases] could not watch the owners of running runs", error);
    } finally {
      this.checkingOwners = false;
    }
  }

  /** Dead owners at once; each owner's runs by the one process that claims that owner. */
  private async takeOverRunsOfAll(dead: string[]): Promise<void> {
    const liveness = this.context.liveness!;
    await Promise.all(dead.map((owner) => liveness.takingOver(owner, () => this.takeOverRunsOf(owner))));
  }

  /** Declares lost the running runs of `owner`, whose liveness lock is free. */
  private async takeOverRunsOf(owner: string): Promise<void> {
    const { liveness, prisma } = this.context;
    const found = await prisma.run.findMany({
      where: { status: "running", leaseOwner: owner },
      select: { id: true, conversationId: true },
      orderBy: { createdAt: "asc" },
    });
    // Asked again after the runs were read: a process restarted under the same name takes
    // its lock before it claims anything, so an owner whose lock is still free now claimed
    // none of these runs since it died; one that took its lock meanwhile may have, and its
    // runs are left alone.
    if (found.length === 0 || (await liveness!.deadOwners([owner])).length === 0) return;
    // one unit per conversation (not per run: a conversation's units wait for its lock one
    // at a time), conversations at once; every unit settled before the owner's claim is
    // let go, so no other process redoes one in flight
    const settled = await Promise.allSettled(
      [...runIdsByConversation(found)].map(([conversationId, runIds]) => this.declareLost({ conversationId, runIds, owner })),
    );
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Declares a conversation's runs lost, and counts the takeovers: only those it declared (not one already ended, or live). */
  private async declareLost(input: { conversationId: string; runIds: string[]; owner: string | null }): Promise<void> {
    const lost = await this.hooks.runsLost(input);
    for (const runId of lost) {
      this.context.logger.info("[leases] took over a run whose owner is gone", { runId, owner: input.owner });
      recordLeaseTakeover();
    }
  }

  /**
   * The liveness lock is held again after a drop: the runs stopped meanwhile that nobody
   * took over are still `running` under this process's name; they are declared lost
   * here (their steps retry) instead of waiting for their lease.
   */
  private async afterLivenessRegained(): Promise<void> {
    const { prisma, instanceId } = this.context;
    try {
      await this.stoppingRuns;
      const live = new Set(this.hooks.liveRunIds());
      const own = await prisma.run.findMany({
        where: { status: "running", leaseOwner: instanceId },
        select: { id: true, conversationId: true },
      });
      const stopped = runIdsByConversation(own.filter((run) => !live.has(run.id)));
      await Promise.all([...stopped].map(([conversationId, runIds]) => this.hooks.runsLost({ conversationId, runIds })));
    } catch (error) {
      this.context.logger.warn("[leases] could not hand back the runs stopped while the liveness lock was lost", error);
    }
    this.hooks.claim();
  }

  /** One pass of the backstop (also called by tests). Never two at once. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      this.hooks.claim();
      // with one process nothing can expire behind its back: its own runs are live
      if (!this.context.config.singleProcess) await this.takeOverExpired({ everyOrphan: false });
      for (const plan of await this.plansToWake()) await this.hooks.tickPlan(plan);
    } catch (error) {
      this.context.logger.warn("[sweep]", error);
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Running plans a tick may move on: a pending step whose retry time has come, or no
   * live run at all (every step waits for something only a reconcile can start). Plans
   * changed within the last sweep interval are left to the events already under way.
   */
  private async plansToWake(): Promise<{ conversationId: string; planId: string }[]> {
    const { prisma, clock, config } = this.context;
    const now = new Date(clock.now());
    const quiet = new Date(clock.now() - config.sweepMs);
    const [due, idle] = await Promise.all([
      prisma.planStep.findMany({
        where: { status: "pending", retryAt: { lte: now }, plan: { status: "running" } },
        select: { plan: { select: { id: true, conversationId: true } } },
        distinct: ["planId"],
        take: 200,
      }),
      prisma.plan.findMany({
        where: { status: "running", updatedAt: { lt: quiet }, runs: { none: { status: { in: ["queued", "running"] } } } },
        select: { id: true, conversationId: true },
        take: 200,
      }),
    ]);
    const wake = new Map<string, { conversationId: string; planId: string }>();
    for (const { plan } of due) wake.set(plan.id, { conversationId: plan.conversationId, planId: plan.id });
    for (const plan of idle) wake.set(plan.id, { conversationId: plan.conversationId, planId: plan.id });
    return [...wake.values()];
  }

  private async renew(): Promise<void> {
    const live = this.hooks.liveRunIds();
    if (live.length === 0) return;
    const { prisma, instanceId, clock, config } = this.context;
    await prisma.run.updateMany({
      where: { id: { in: live }, leaseOwner: instanceId, status: "running" },
      data: { leaseExpiresAt: new Date(clock.now() + config.leaseMs) },
    });
    // A run another process took over (or that was cancelled) must stop here.
    const gone = await prisma.run.findMany({
      where: { id: { in: live }, OR: [{ leaseOwner: { not: instanceId } }, { leaseOwner: null }, { status: { not: "running" } }] },
      select: { id: true },
    });
    for (const run of gone) this.hooks.abortRun(run.id);
  }

  /** Running runs whose owner stopped renewing (with `everyOrphan`: every running run not live here). */
  private async takeOverExpired({ everyOrphan }: { everyOrphan: boolean }): Promise<void> {
    const { prisma, instanceId, clock } = this.context;
    const live = new Set(this.hooks.liveRunIds());
    const candidates = await prisma.run.findMany({
      where: {
        status: "running",
        ...(everyOrphan ? {} : { leaseExpiresAt: { lt: new Date(clock.now()) } }),
      },
      select: { id: true, conversationId: true, leaseOwner: true },
      orderBy: { createdAt: "asc" },
    });
    const orphans = candidates.filter((run) => !(run.leaseOwner === instanceId && live.has(run.id)));
    for (const [conversationId, runIds] of runIdsByConversation(orphans)) await this.declareLost({ conversationId, runIds, owner: null });
  }
}
