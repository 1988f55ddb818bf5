/**
 * Slots follow their plan, on a timer owned by the workspace runtime: the worktrees
 * of ended plans are removed at the next sweep (their branches stay, so results can
 * still be merged and a reaction can make the worktree again), and the branches of
 * plans nobody merged are deleted once the plan ended longer ago than the retention
 * (BATON_SLOT_RETENTION_MS). One sweep at a time; a failed sweep is logged and the
 * next one tries again. The timer does not keep the process alive and stops on close.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { log } from "../observability/log.ts";
import { deleteUnmergedBranches, removeEndedSlots } from "./slot-store.ts";

/** Runs `sweep` every `ms`; returns how to stop. */
export type Schedule = (sweep: () => Promise<void>, ms: number) => () => void;

/** How often ended plans are looked for: their worktrees go within this long of the end. */
export const SLOT_SWEEP_INTERVAL_MS = 15_000;

const intervalSchedule: Schedule = (sweep, ms) => {
  const timer = setInterval(() => void sweep(), ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface SweepResult {
  /** worktrees of ended plans removed */
  worktrees: number;
  /** slots whose branch was deleted (plans nobody merged, ended longer ago than the retention) */
  branches: number;
}

export interface SlotRetention {
  /** one sweep now */
  sweep(now?: Date): Promise<SweepResult>;
  /** starts the periodic sweep (again a no-op while running) */
  start(options?: { intervalMs?: number; schedule?: Schedule }): void;
  stop(): void;
}

export function createSlotRetention(deps: {
  prisma: PrismaClient;
  slotsDir: string;
  retentionMs: number;
  /** the slots this process's runs are working in: never removed under them */
  inUse?: ReadonlySet<string>;
}): SlotRetention {
  let running: Promise<SweepResult> | null = null;
  let cancel: (() => void) | null = null;

  async function sweepOnce(now: Date): Promise<SweepResult> {
    const worktrees = await removeEndedSlots(deps.prisma, { slotsDir: deps.slotsDir, now, inUse: deps.inUse });
    const branches = await deleteUnmergedBranches(deps.prisma, {
      slotsDir: deps.slotsDir,
      endedBefore: new Date(now.getTime() - deps.retentionMs),
    });
    return { worktrees, branches };
  }

  function sweep(now = new Date()): Promise<SweepResult> {
    running ??= sweepOnce(now).finally(() => (running = null));
    return running;
  }

  return {
    sweep,
    start(options = {}) {
      if (cancel) return;
      const schedule = options.schedule ?? intervalSchedule;
      cancel = schedule(async () => {
        try {
          const { worktrees, branches } = await sweep();
          if (worktrees > 0) log.info({ removed: worktrees }, `removed ${worktrees} slot worktree(s) of ended plans`);
          if (branches > 0) log.info({ deleted: branches }, `deleted ${branches} unmerged slot branch(es) past the retention`);
        } catch (error) {
          log.warn({ err: error }, "sweeping the slots of ended plans failed; the next sweep tries again");
        }
      }, options.intervalMs ?? SLOT_SWEEP_INTERVAL_MS);
    },
    stop() {
      cancel?.();
      cancel = null;
    },
  };
}
