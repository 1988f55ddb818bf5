/**
 * The databases the benchmarks run on, and nothing else touched:
 *   embedded: an in-memory PGlite, migrated from scratch (nothing written to disk);
 *   postgres: a scratch database `baton_bench_<time>_<random>` created on the server and
 *             with the credentials of the DATABASE_URL it is given (connecting to that
 *             database to create and drop it), migrated, and dropped again by close() —
 *             also when the run fails or is interrupted. The given database itself is
 *             only connected to; no template is built, no other database is dropped.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../server/db/pglite-extensions.ts";
import pg from "pg";
import { databaseFromPGlite, openDatabase, type Database } from "../server/db/database.ts";

/** In memory, on this thread, as the server's embedded database runs. */
export async function openEmbeddedBenchDatabase(): Promise<Database> {
  return databaseFromPGlite(await PGlite.create({ extensions: PGLITE_EXTENSIONS }));
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The URL with another database name (same server, user, password and options). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onGivenDatabase<T>(givenUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: givenUrl, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface BenchDatabase extends Database {
  /** the scratch database's name */
  name: string;
}

export async function openPostgresBenchDatabase(givenUrl: string): Promise<BenchDatabase> {
  const name = `baton_bench_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await onGivenDatabase(givenUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
  let dropped: Promise<void> | undefined;
  const drop = () =>
    (dropped ??= onGivenDatabase(givenUrl, async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }));
  // Ctrl-C during a long benchmark must not leave the scratch database behind
  const onSignal = () => void drop().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let db: Database;
  try {
    db = await openDatabase({ url: withDatabase(givenUrl, name) });
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  }
  const close = db.close.bind(db);
  return {
    ...db,
    name,
    close: async () => {
      try {
        await close();
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await drop();
      }
    },
  };
}
