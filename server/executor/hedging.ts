/**
 * When to hedge (the core decides whether: core/hedge.ts). Each agent with an
 * alternate model (Agent.hedgeModel) has a window of its last WINDOW successful step
 * runs on its own model (and of those that lost a hedge, for as long as they ran) —
 * their durations and usage — kept in this process's memory
 * and seeded from the Run table the first time the agent is needed. A step run that
 * starts here sets a timer at its start + the window's p95 (once the window holds
 * MIN_SAMPLES); if the run is still going then, the plan gets a `hedge` event with the
 * window's mean usage as the estimate the budget must cover.
 *
 * Nothing here is durable, on purpose: a process that dies takes its timers with its
 * runs, whose steps are retried; a run taken over elsewhere is simply not hedged.
 * The core refuses whatever no longer applies (the run ended, the attempt was hedged).
 */
import type { Agent } from "../generated/prisma/client.ts";
import { LOST_HEDGE } from "../core/hedge.ts";
import type { RunUsage } from "../core/types.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import { applyPlanEvent } from "./plan-effects.ts";
import { storeStoppedRunUsage } from "./stopped-run-usage.ts";
import type { RunLaunch } from "./run-launch.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { UnitPlan } from "./units.ts";

/** what a hedge loser's row says once what it spent is stored */
const LOST_HEDGE_ERROR = `cancelled: ${LOST_HEDGE}`;
/** how many recent runs an agent's p95 is taken over */
const WINDOW = 50;
/** fewer than this and an agent is not hedged: a p95 of a handful of runs means little */
export const MIN_SAMPLES = 20;

interface Sample {
  durationMs: number;
  usage: RunUsage;
}

/** The p-th percentile (0..1) of `values` by nearest rank; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** An agent's recent successful runs on its own model, newest last. */
class AgentWindow {
  readonly samples: Sample[] = [];

  add(sample: Sample): void {
    this.samples.push(sample);
    if (this.samples.length > WINDOW) this.samples.shift();
  }

  /** how long a run may go before it is hedged, or null while there are too few samples */
  threshold(): number | null {
    if (this.samples.length < MIN_SAMPLES) return null;
    return percentile(
      this.samples.map((sample) => sample.durationMs),
      0.95,
    );
  }

  estimate(): RunUsage {
    const count = Math.max(1, this.samples.length);
    let tokens = 0;
    let cost = 0;
    for (const sample of this.samples) {
      tokens += sample.usage.tokens;
      cost += sample.usage.cost;
    }
    return { tokens: Math.ceil(tokens / count), cost: cost / count };
  }
}

/** What hedging needs from the executor that owns it. */
interface Host {
  inConversation<T>(
    conversationId: string,
    work: (tx: Prisma.TransactionClient, uow: UnitOfWork) => Promise<T>,
    plan?: UnitPlan,
  ): Promise<T>;
  track(promise: Promise<unknown>): void;
  stopped(): boolean;
}

export class Hedging {
  private readonly windows = new Map<string, Promise<AgentWindow>>();
  /** runs cancelled here because their twin won: their usage is reported when they stop */
  private readonly losers = new Set<string>();

  constructor(
    private readonly context: ExecutorContext,
    private readonly host: Host,
  ) {}

  /** Whether runs of this launch's agent on this model may be hedged at all. */
  private hedgeable(launch: RunLaunch): launch is RunLaunch & { planId: string; stepIndex: number; agent: Agent & { hedgeModel: string } } {
    const { agent } = launch;
    return (
      this.context.config.hedging !== false &&
      (launch.kind === "step" || launch.kind === "commander-step") &&
      launch.planId !== null &&
      launch.stepIndex !== null &&
      !!agent.hedgeModel &&
      // the twin itself runs on the alternate: it is never hedged again
      agent.hedgeModel !== agent.model
    );
  }

  /**
   * A run of this process went live (`confirmed`: a run started early, once its unit
   * committed). Returns the function that stops watching it, called when it ends.
   */
  watch(launch: RunLaunch, confirmed?: Promise<boolean>): () => void {
    if (!this.hedgeable(launch)) return () => undefined;
    let timer: { cancel(): void } | null = null;
    let ended = false;
    const arm = async () => {
      if (confirmed && !(await confirmed)) return;
      const startedAt = confirmed ? this.context.clock.now() : launch.startedAt.getTime();
      const window = await this.window(launch.agent);
      const after = window.threshold();
      if (after === null || ended || this.host.stopped()) return;
      timer = this.context.clock.setTimer(startedAt + after, () => {
        timer = null;
        if (!ended && !this.host.stopped()) this.host.track(this.hedge(launch, window.estimate()));
      });
    };
    this.host.track(arm());
    return () => {
      ended = true;
      timer?.cancel();
    };
  }

  /** A run of this process ended and its result was stored: a success on the agent's own model joins its window. */
  recorded(launch: RunLaunch, result: AgentRunResult): void {
    if (result.kind === "ok") this.sample(launch, result);
  }

  /**
   * Adds a run on the agent's own model to its window. A primary that lost a hedge
   * counts too, with the time it had run when it was stopped: leaving the slow runs out
   * would pull the p95 down with every hedge, and hedge ever more.
   */
  private sample(launch: RunLaunch, result: AgentRunResult): void {
    if (!this.hedgeable(launch)) return;
    const pending = this.windows.get(launch.agent.id);
    // an unseeded window reads this run from the table when it is first needed
    if (!pending) return;
    const durationMs = this.context.clock.now() - launch.startedAt.getTime();
    void pending.then((window) =>
      window.add({ durationMs, usage: { tokens: result.usage.tokensIn + result.usage.tokensOut, cost: result.usage.cost } }),
    );
  }

  /** Runs a committed unit cancelled as hedge losers (before they are aborted). */
  lost(runIds: readonly string[]): void {
    for (const runId of runIds) this.losers.add(runId);
  }

  /** Whether the run was cancelled because its twin finished first (and its abort is not yet handled). */
  isLoser(runId: string): boolean {
    return this.losers.has(runId);
  }

  /**
   * A run of this process was aborted: when it was a hedge loser cancelled here, its
   * spending is stored with the row saying it lost the hedge, and true is returned;
   * otherwise false (its spending is the caller's: stopped-run-usage.ts).
   */
  aborted(launch: RunLaunch, result: AgentRunResult): boolean {
    if (!this.losers.delete(launch.request.runId)) return false;
    this.sample(launch, result);
    this.host.track(storeStoppedRunUsage(this.context, this.host, { launch, usage: result.usage, error: LOST_HEDGE_ERROR }));
    return true;
  }

  private hedge(launch: RunLaunch & { planId: string; stepIndex: number; agent: { hedgeModel: string } }, estimate: RunUsage) {
    const { planId, stepIndex } = launch;
    const event = { type: "hedge" as const, stepIndex, runId: launch.request.runId, model: launch.agent.hedgeModel, estimate };
    return this.host.inConversation(
      launch.request.conversationId,
      async (tx, uow) => {
        await applyPlanEvent(this.context, tx, uow, { planId, event });
      },
      { planId },
    );
  }

  /** The agent's window, read from the table once per process. */
  private window(agent: Agent): Promise<AgentWindow> {
    let pending = this.windows.get(agent.id);
    if (!pending) {
      pending = this.seed(agent);
      this.windows.set(agent.id, pending);
      // a failed read is tried again next time instead of leaving the agent unhedged
      pending.catch(() => this.windows.delete(agent.id));
    }
    return pending;
  }

  private async seed(agent: Agent): Promise<AgentWindow> {
    const rows = await this.context.prisma.run.findMany({
      where: {
        agentId: agent.id,
        OR: [{ status: "succeeded" }, { status: "cancelled", error: LOST_HEDGE_ERROR }],
        model: agent.model,
        stepId: { not: null },
        startedAt: { not: null },
      },
      orderBy: { endedAt: "desc" },
      take: WINDOW,
      select: { startedAt: true, endedAt: true, tokensIn: true, tokensOut: true, cost: true },
    });
    const window = new AgentWindow();
    for (const row of rows.reverse()) {
      if (!row.startedAt || !row.endedAt) continue;
      window.add({
        durationMs: row.endedAt.getTime() - row.startedAt.getTime(),
        usage: { tokens: row.tokensIn + row.tokensOut, cost: row.cost },
      });
    }
    return window;
  }
}
