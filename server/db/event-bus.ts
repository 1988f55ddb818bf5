/**
 * The channel between Baton's processes on PostgreSQL (adapters/socket/socket-publisher.ts):
 * a unit's committed seqs (sent by the unit's own statement at commit: commitNotice), a
 * run's streamed text and status. NOTIFY on EVENTS_CHANNEL, heard on a LISTEN connection
 * that comes back when it drops (pg-listener.ts); the publisher learns of the drop and of
 * the re-subscribe, and replays from the event log what it may have missed.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { ClusterBus, ClusterMessage } from "../adapters/socket/socket-publisher.ts";
import { log } from "../observability/log.ts";
import { listenResiliently, type ResilientListener } from "./pg-listener.ts";

export const EVENTS_CHANNEL = "baton_events";

export interface PostgresBus extends ClusterBus {
  close(): Promise<void>;
}

export function postgresBus(pool: pg.Pool): PostgresBus {
  const id = randomUUID();
  let listener: ResilientListener | null = null;
  return {
    id,
    channel: EVENTS_CHANNEL,
    async send(message: ClusterMessage) {
      try {
        await pool.query("SELECT pg_notify($1, $2)", [EVENTS_CHANNEL, JSON.stringify(message)]);
      } catch (error) {
        // best effort: the events are in the log, and browsers replay what they miss
        log.warn({ err: error, kind: message.kind }, "could not tell the other processes");
      }
    },
    subscribe(handlers) {
      listener = listenResiliently(pool.options, [EVENTS_CHANNEL], {
        notification: (_channel, payload) => {
          let message: ClusterMessage;
          try {
            message = JSON.parse(payload) as ClusterMessage;
          } catch {
            return;
          }
          handlers.message(message);
        },
        onLost: () => handlers.lost(),
        onConnected: (again) => {
          if (again) handlers.resubscribed();
        },
      });
    },
    async close() {
      await listener?.close();
    },
  };
}
