/**
 * Durability and the liveness backstop. A run is owned by the process that claimed
 * it through a lease that process keeps renewing. At start-up, and in every sweep,
 * runs whose lease ran out are declared lost (a transient failure of their step, so
 * the plan retries them once within budget). Everything else a plan can wait for is
 * in the database too — a queued run waits for a pool slot, a pending step for its
 * `retryAt` — and the sweep, on every process, acts on whatever nobody woke: it
 * claims queued runs that have room, ticks plans whose retry time has come, and
 * ticks running plans that have no live run at all.
 */
import type { ExecutorContext } from "./context.ts";
import { recordLeaseTakeover } from "../ops/instruments.ts";

interface LeaseHooks {
  liveRunIds(): string[];
  abortRun(runId: string): void;
  runLost(input: { conversationId: string; runId: string }): Promise<void>;
  tickPlan(input: { conversationId: string; planId: string }): Promise<void>;
  /** claim queued runs this process has room for */
  claim(): void;
}

export class LeaseKeeper {
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private sweeping = false;

  constructor(
    private readonly context: ExecutorContext,
    private readonly hooks: LeaseHooks,
  ) {}

  /** Takes over orphaned runs and resumes every unfinished plan. */
  async recover(): Promise<void> {
    await this.takeOverExpired({ everyOrphan: this.context.config.singleProcess });
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
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweeper) clearInterval(this.sweeper);
    this.heartbeat = this.sweeper = null;
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
    for (const run of candidates) {
      if (run.leaseOwner === instanceId && live.has(run.id)) continue;
      recordLeaseTakeover();
      await this.hooks.runLost({ conversationId: run.conversationId, runId: run.id });
    }
  }
}
