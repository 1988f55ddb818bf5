/**
 * LISTEN on PostgreSQL for the run queue's wake-ups (executor/run-queue.ts): a unit
 * that leaves runs queued in a pool NOTIFYs at commit, and every process with room
 * claims. One dedicated connection, re-established if it drops; the sweep covers
 * whatever is missed meanwhile.
 */
import type pg from "pg";
import type { Notifications } from "../executor/context.ts";
import { RUNS_CHANNEL } from "../executor/run-queue.ts";

export function postgresNotifications(pool: pg.Pool): Notifications {
  return {
    async listen(onRunsWaiting) {
      let client: pg.PoolClient | null = null;
      let closed = false;
      const connect = async () => {
        if (closed) return;
        try {
          const connection = await pool.connect();
          connection.on("notification", (message) => {
            if (message.channel === RUNS_CHANNEL) onRunsWaiting();
          });
          connection.on("error", () => {
            connection.release(true);
            if (client === connection) client = null;
            setTimeout(() => void connect(), 1_000).unref?.();
          });
          await connection.query(`LISTEN ${RUNS_CHANNEL}`);
          client = connection;
        } catch {
          setTimeout(() => void connect(), 1_000).unref?.();
        }
      };
      await connect();
      return async () => {
        closed = true;
        const connection = client;
        client = null;
        if (!connection) return;
        await connection.query(`UNLISTEN ${RUNS_CHANNEL}`).catch(() => undefined);
        connection.release();
      };
    },
  };
}
