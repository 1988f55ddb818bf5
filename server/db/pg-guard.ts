/**
 * Every pg pool Baton opens goes through here, so that no dropped connection can end
 * the process. pg emits `error` on an idle pool client (the pool's own listener turns
 * that into the pool's `error` event, which must be handled) and on a checked-out client
 * that is not running a query (nobody's listener: the process dies). A pool passed to a
 * library that keeps a client checked out for good (Socket.IO's PostgreSQL adapter, its
 * LISTEN client) can also ask for such a client to be handed back broken, so that the
 * library's own re-connect does not leak one of the pool's slots each time.
 *
 * When the database goes away every connection of every pool drops at once: the log says
 * so once, and once more when a connection is made again, with how long it took and how
 * many connections dropped meanwhile (OutageLog), not a warning per connection.
 */
import type pg from "pg";
import type { Logger } from "pino";
import { log } from "../observability/log.ts";
import { outsideRequest } from "../observability/request-id.ts";

export interface OutageLog {
  /** a connection of `pool` dropped */
  dropped(pool: string, error: unknown): void;
  /** a connection of `pool` was made */
  connected(pool: string): void;
}

/**
 * One warning when connections start dropping, one line when one is made again; the drops
 * between at debug. Lines about the process, not a request: pg emits these events in the
 * async context of whichever request opened the connection or caused the reconnect.
 */
export function outageLog(
  logger: Pick<Logger, "warn" | "info" | "debug">,
  now: () => number = Date.now,
  /** told false when connections start dropping and true when one is made again: the log lines' moments */
  onReachability: (reachable: boolean) => void = () => {},
): OutageLog {
  const lines = outageLines(logger, now, onReachability);
  return {
    dropped: (pool, error) => outsideRequest(() => lines.dropped(pool, error)),
    connected: (pool) => outsideRequest(() => lines.connected(pool)),
  };
}

function outageLines(
  logger: Pick<Logger, "warn" | "info" | "debug">,
  now: () => number,
  onReachability: (reachable: boolean) => void,
): OutageLog {
  let since: number | null = null;
  let drops = 0;
  return {
    dropped(pool, error) {
      drops += 1;
      if (since !== null) return logger.debug({ err: error, pool }, "a database connection dropped");
      since = now();
      logger.warn({ err: error, pool }, "database connections dropped: the database went away or restarted; reconnecting");
      onReachability(false);
    },
    connected(pool) {
      if (since === null) return;
      const downMs = now() - since;
      logger.info(
        { pool, downMs, droppedConnections: drops },
        `the database is back: connected again ${(downMs / 1000).toFixed(1)} s after connections dropped (${drops} dropped)`,
      );
      since = null;
      drops = 0;
      onReachability(true);
    },
  };
}

const reachabilityListeners = new Set<(reachable: boolean) => void>();

/** the process's own: its pools share one outage */
const processOutage = outageLog(log, Date.now, (reachable) => {
  for (const listener of reachabilityListeners) listener(reachable);
});

/**
 * Calls `listener` with false when this process's database connections start dropping and
 * with true when one is made again (the moments of the outage log lines); returns the
 * unsubscribe.
 */
export function onDatabaseReachability(listener: (reachable: boolean) => void): () => void {
  reachabilityListeners.add(listener);
  return () => reachabilityListeners.delete(listener);
}

export function guardPool(pool: pg.Pool, options: { name: string; releaseBrokenClients?: boolean; outage?: OutageLog }): pg.Pool {
  const outage = options.outage ?? processOutage;
  const checkedOut = new Set<pg.PoolClient>();
  // an idle client's drop is told twice (the client's event and the pool's): counted once
  const dropped = new WeakSet<pg.PoolClient>();
  const drop = (client: pg.PoolClient, error: unknown) => {
    if (dropped.has(client)) return;
    dropped.add(client);
    outage.dropped(options.name, error);
  };
  pool.on("error", (error, client) => drop(client, error));
  pool.on("acquire", (client) => checkedOut.add(client));
  pool.on("release", (_error, client) => checkedOut.delete(client));
  pool.on("remove", (client) => checkedOut.delete(client));
  pool.on("connect", (client) => {
    outage.connected(options.name);
    client.on("error", (error) => {
      drop(client, error);
      if (!options.releaseBrokenClients || !checkedOut.has(client)) return;
      checkedOut.delete(client);
      // passing the error destroys the client instead of returning it to the idle list
      client.release(error);
    });
  });
  return pool;
}

/**
 * Ends a pool, waiting at most `timeoutMs` for its checked-out clients: pg's `end()` waits
 * for every one to be released, and a library that lost track of one (Socket.IO's
 * PostgreSQL adapter, re-subscribing across dropped connections) never releases it, so a
 * shutdown waited forever. Resolves true once ended, false when it gave up (the process
 * exits after its shutdown, which closes what is left).
 */
export async function endPool(
  pool: pg.Pool,
  options: { name: string; timeoutMs: number; logger?: Pick<Logger, "warn"> },
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.timeoutMs)));
  const ended = await Promise.race([
    pool.end().then(
      () => true as const,
      () => true as const,
    ),
    gaveUp,
  ]);
  clearTimeout(timer);
  if (!ended)
    (options.logger ?? log).warn(
      { pool: options.name, checkedOut: pool.totalCount - pool.idleCount },
      `the ${options.name} pool did not end within ${options.timeoutMs} ms: a connection is still checked out; shutting down without it`,
    );
  return ended;
}
