/**
 * Removing the worktrees of ended plans after a retention period (their branches
 * stay, so results can still be merged or downloaded), on a timer owned by the
 * workspace runtime. One sweep at a time; a failed sweep is logged and the next
 * one tries again. The timer does not keep the process alive and stops on close.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { log } from "../ops/log.ts";
import { removeEndedSlots } from "./slot-store.ts";

/** Runs `sweep` every `ms`; returns how to stop. */
export type Schedule = (sweep: () => Promise<void>, ms: number) => () => void;

const intervalSchedule: Schedule = (sweep, ms) => {
  const timer = setInterval(() => void sweep(), ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** A quarter of the retention, between a minute and an hour. */
export function retentionInterval(retentionMs: number): number {
  return Math.min(3_600_000, Math.max(60_000, Math.floor(retentionMs / 4)));
}

export interface SlotRetention {
  /** one sweep now: the worktrees of plans ended more than the retention ago; how many were removed */
  sweep(now?: Date): Promise<number>;
  /** starts the periodic sweep (again a no-op while running) */
  start(options?: { intervalMs?: number; schedule?: Schedule }): void;
  stop(): void;
}

export function createSlotRetention(deps: { prisma: PrismaClient; slotsDir: string; retentionMs: number }): SlotRetention {
  let running: Promise<number> | null = null;
  let cancel: (() => void) | null = null;

  function sweep(now = new Date()): Promise<number> {
    running ??= removeEndedSlots(deps.prisma, {
      slotsDir: deps.slotsDir,
      endedBefore: new Date(now.getTime() - deps.retentionMs),
      now,
    }).finally(() => (running = null));
    return running;
  }

  return {
    sweep,
    start(options = {}) {
      if (cancel) return;
      const schedule = options.schedule ?? intervalSchedule;
      cancel = schedule(
        async () => {
          try {
            const removed = await sweep();
            if (removed > 0) log.info({ removed }, `removed ${removed} slot worktree(s) of ended plans`);
          } catch (error) {
            log.warn({ err: error }, "removing the slots of ended plans failed; the next sweep tries again");
          }
        },
        options.intervalMs ?? retentionInterval(deps.retentionMs),
      );
    },
    stop() {
      cancel?.();
      cancel = null;
    },
  };
}
