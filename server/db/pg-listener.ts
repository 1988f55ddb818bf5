/**
 * A LISTEN connection that comes back. PostgreSQL forgets a session's LISTENs when the
 * connection drops (a failover, a restart, `pg_terminate_backend`, a proxy's idle cut),
 * and pg's Client then emits `error`, which kills the process when nobody listens. This
 * holds one dedicated connection, handles its errors, and re-connects with jittered
 * exponential backoff (RECONNECT_MIN_MS doubling to RECONNECT_MAX_MS), LISTENing again.
 * `onConnected(again)` runs after every (re-)subscription: with `again` true, whatever
 * was NOTIFYed while nobody listened is gone, and the caller reads it from the database.
 */
import pg from "pg";
import { log } from "../observability/log.ts";

export const RECONNECT_MIN_MS = 100;
export const RECONNECT_MAX_MS = 5_000;

export interface ResilientListener {
  /** true while LISTENing */
  readonly connected: boolean;
  close(): Promise<void>;
}

export interface ListenerHandlers {
  notification(channel: string, payload: string): void;
  /** after LISTEN took effect; `again`: not the first time, notifications may have been missed */
  onConnected?(again: boolean): void;
  onLost?(): void;
}

/** The next wait before re-connecting: doubled from `previous`, with ±25 % jitter, within the bounds. */
export function nextBackoff(previous: number | null, random: () => number = Math.random): number {
  const base = previous === null ? RECONNECT_MIN_MS : Math.max(RECONNECT_MIN_MS, Math.min(RECONNECT_MAX_MS, previous * 2));
  return Math.round(Math.min(RECONNECT_MAX_MS, base * (0.75 + random() / 2)));
}

/** One pending reconnect at a time, each wait longer than the last until `succeeded()`. */
export interface Reconnector {
  /** schedule `connect` after the next backoff, unless one is pending or it was stopped */
  schedule(): void;
  /** the wait the next `schedule` would use (for a log line) */
  nextWait(): number;
  /** connected: the next loss waits the shortest time again */
  succeeded(): void;
  stop(): void;
}

export function reconnector(connect: () => void): Reconnector {
  let delay: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  return {
    schedule() {
      if (stopped || timer) return;
      delay = nextBackoff(delay);
      timer = setTimeout(() => {
        timer = null;
        connect();
      }, delay);
      timer.unref?.();
    },
    nextWait: () => nextBackoff(delay),
    succeeded() {
      delay = null;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** Quotes a channel name for LISTEN (an identifier, not a literal). */
function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function listenResiliently(config: pg.ClientConfig, channels: string[], handlers: ListenerHandlers): ResilientListener {
  let client: pg.Client | null = null;
  let closed = false;
  let everConnected = false;
  const reconnect = reconnector(() => void connect());
  const retry = () => reconnect.schedule();
  const lose = (connection: pg.Client, error?: unknown) => {
    if (client !== connection) return;
    client = null;
    if (error) log.warn({ err: error, channels }, "LISTEN connection lost; re-subscribing");
    handlers.onLost?.();
    void connection.end().catch(() => undefined);
    retry();
  };
  const connect = async () => {
    if (closed) return;
    const connection = new pg.Client(config);
    // registered before connecting: an error at any time is handled, never thrown at the process
    connection.on("error", (error) => lose(connection, error));
    connection.on("end", () => lose(connection));
    connection.on("notification", (message) => handlers.notification(message.channel, message.payload ?? ""));
    try {
      await connection.connect();
      for (const channel of channels) await connection.query(`LISTEN ${identifier(channel)}`);
    } catch (error) {
      log.warn({ err: error, channels, retryInMs: reconnect.nextWait() }, "could not LISTEN; retrying");
      void connection.end().catch(() => undefined);
      retry();
      return;
    }
    if (closed) {
      await connection.end().catch(() => undefined);
      return;
    }
    client = connection;
    reconnect.succeeded();
    const again = everConnected;
    everConnected = true;
    handlers.onConnected?.(again);
  };
  void connect();
  return {
    get connected() {
      return client !== null;
    },
    async close() {
      closed = true;
      reconnect.stop();
      const connection = client;
      client = null;
      await connection?.end().catch(() => undefined);
    },
  };
}
