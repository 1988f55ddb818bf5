/**
 * LISTEN on PostgreSQL for the run queue's wake-ups (run-queue.ts): a unit
 * that leaves runs queued in a pool NOTIFYs at commit, and every process with room
 * claims. One dedicated connection that comes back when it drops (db/pg-listener.ts);
 * after a re-subscribe this process claims at once, since a wake-up may have been
 * missed meanwhile (the sweep would find it too, later).
 */
import type pg from "pg";
import type { Notifications } from "./context.ts";
import { RUNS_CHANNEL } from "./run-queue.ts";
import { listenResiliently } from "../db/pg-listener.ts";

export function postgresNotifications(pool: pg.Pool): Notifications {
  return {
    async listen(onRunsWaiting) {
      const listener = listenResiliently(pool.options, [RUNS_CHANNEL], {
        notification: (channel) => {
          if (channel === RUNS_CHANNEL) onRunsWaiting();
        },
        onConnected: (again) => {
          if (again) onRunsWaiting();
        },
      });
      return () => listener.close();
    },
  };
}
