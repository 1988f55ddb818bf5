/**
 * Durability: a run is owned by the process that started it through a lease that
 * process keeps renewing. At start-up, and periodically when several processes
 * share PostgreSQL, runs whose lease ran out are declared lost (a transient failure
 * of their step, so the plan retries them once within budget), and every unfinished
 * plan is reconciled so retries and ready steps carry on.
 */
import type { ExecutorContext } from "./context.ts";

interface LeaseHooks {
  liveRunIds(): string[];
  abortRun(runId: string): void;
  runLost(input: { conversationId: string; runId: string }): Promise<void>;
  tickPlan(input: { conversationId: string; planId: string }): Promise<void>;
}

export class LeaseKeeper {
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private sweeper: ReturnType<typeof setInterval> | null = null;

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
    const { leaseMs, singleProcess } = this.context.config;
    this.heartbeat = setInterval(() => void this.renew().catch((error) => this.context.logger.warn("[leases]", error)), Math.max(1000, leaseMs / 3));
    this.heartbeat.unref?.();
    if (!singleProcess) {
      this.sweeper = setInterval(
        () => void this.takeOverExpired({ everyOrphan: false }).catch((error) => this.context.logger.warn("[leases]", error)),
        Math.max(1000, leaseMs / 2),
      );
      this.sweeper.unref?.();
    }
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweeper) clearInterval(this.sweeper);
    this.heartbeat = this.sweeper = null;
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

  private async takeOverExpired({ everyOrphan }: { everyOrphan: boolean }): Promise<void> {
    const { prisma, instanceId, clock } = this.context;
    const live = new Set(this.hooks.liveRunIds());
    const candidates = await prisma.run.findMany({
      where: {
        status: { in: ["queued", "running"] },
        ...(everyOrphan ? {} : { leaseExpiresAt: { lt: new Date(clock.now()) } }),
      },
      select: { id: true, conversationId: true, leaseOwner: true },
      orderBy: { createdAt: "asc" },
    });
    for (const run of candidates) {
      if (run.leaseOwner === instanceId && live.has(run.id)) continue;
      await this.hooks.runLost({ conversationId: run.conversationId, runId: run.id });
    }
  }
}
