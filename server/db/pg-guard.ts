/**
 * Every pg pool Baton opens goes through here, so that no dropped connection can end
 * the process. pg emits `error` on an idle pool client (the pool's own listener turns
 * that into the pool's `error` event, which must be handled) and on a checked-out client
 * that is not running a query (nobody's listener: the process dies). A pool passed to a
 * library that keeps a client checked out for good (Socket.IO's PostgreSQL adapter, its
 * LISTEN client) can also ask for such a client to be handed back broken, so that the
 * library's own re-connect does not leak one of the pool's slots each time.
 */
import type pg from "pg";
import { log } from "../observability/log.ts";

export function guardPool(pool: pg.Pool, options: { name: string; releaseBrokenClients?: boolean }): pg.Pool {
  const checkedOut = new Set<pg.PoolClient>();
  pool.on("error", (error) => log.warn({ err: error, pool: options.name }, "an idle database connection dropped"));
  pool.on("acquire", (client) => checkedOut.add(client));
  pool.on("release", (_error, client) => checkedOut.delete(client));
  pool.on("remove", (client) => checkedOut.delete(client));
  pool.on("connect", (client) => {
    client.on("error", (error) => {
      log.warn({ err: error, pool: options.name }, "a database connection in use dropped");
      if (!options.releaseBrokenClients || !checkedOut.has(client)) return;
      checkedOut.delete(client);
      // passing the error destroys the client instead of returning it to the idle list
      client.release(error);
    });
  });
  return pool;
}
