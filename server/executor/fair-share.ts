/**
 * With several processes that run agents, each claims up to its fair part of the runs
 * running across them. A unit's own statement claims for its process only below that
 * part, and a wake-up above it waits FAIR_SHARE_DEFER_MS, so that a process with less to
 * do claims first. Without it, the process receiving the API calls created the runs and
 * claimed them in the same statement, and its statements ending runs claimed the next
 * ones: every run ran there while the others idled.
 */

/** how long a process at its fair share lets the others claim before it does */
export const FAIR_SHARE_DEFER_MS = 100;

/** A process's fair share of what the cluster runs now (leases.ts samples it every second); one process alone has no bound. */
export function fairShareOf({ running, workers }: { running: number; workers: number }): number {
  return workers <= 1 ? Number.POSITIVE_INFINITY : Math.ceil(running / workers) + 1;
}
