// Opening Baton's database: embedded PGlite (PostgreSQL in WASM, in-process, persisted in a
// directory) when no URL is configured, else PostgreSQL through a pg Pool. Either way the
// pending migrations of prisma/migrations are applied before the client is handed out.
//
// The embedded database runs on a thread of its own (pglite-thread.ts), through PGlite's
// public API: its statements are synchronous WebAssembly, and on the server's thread a
// burst of them delays every socket and request (`npm run bench` prints by how much).
// Each statement pays a hand-over between threads; BATON_PGLITE_THREAD=0 keeps PGlite on
// the server's thread instead. One connection either way.
//
// PGlite is ONE connection: inside an interactive `prisma.$transaction(async (tx) => …)`
// use only `tx`; touching `prisma` (or the PGlite instance) there waits for the
// transaction to end, i.e. hangs until it times out.

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "./pglite-extensions.ts";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PGliteThread } from "./pglite-thread.ts";
import { threadAdapterFactory } from "./pglite-thread-adapter.ts";
import { type Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { applyMigrations, migrationsUpToDate, readMigrationsFolder } from "./schema-engine.ts";
import { pgliteSql, pgSql, type SqlRunner } from "./sql-runner.ts";
import { ensurePrivateDir, makeTreePrivate } from "./private-files.ts";
import { guardPool } from "./pg-guard.ts";

export type DatabaseKind = "embedded" | "postgres";

/** What the server uses of the embedded database besides Prisma: raw SQL and backups (PGlite or its thread). */
export interface EmbeddedDatabase {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  dumpDataDir(compression?: "auto" | "gzip" | "none"): Promise<Blob>;
}

export interface Database {
  prisma: PrismaClient;
  kind: DatabaseKind;
  /** Disconnects Prisma, then closes the PGlite instance / ends the pool. Idempotent. */
  close(): Promise<void>;
  /** embedded only: the PGlite instance or its thread (raw SQL, backups); one connection, shared with `prisma` */
  pglite?: PGlite | PGliteThread;
  /** postgres only: the pool `prisma` uses (raw SQL, LISTEN/NOTIFY on a checked-out client) */
  pool?: pg.Pool;
  /** postgres only: the pool `sql` uses (HOT_PATH_POOL) */
  hotPathPool?: pg.Pool;
  /** names of the migrations applied while opening (empty when the schema was up to date) */
  appliedMigrations: string[];
  /** the driver's own query, without Prisma (the executor's hot path: sql-runner.ts) */
  sql: SqlRunner;
  /**
   * statements run outside this process (a PostgreSQL server), so work started while one
   * is in flight overlaps it (the executor's early start)
   */
  sqlElsewhere: boolean;
}

export type PrismaLogOption = Prisma.PrismaClientOptions["log"];

export interface OpenDatabaseOptions {
  /** unset/empty: embedded PGlite; `postgresql://…` or `postgres://…`: that PostgreSQL */
  url?: string;
  /** embedded only: the PGlite data directory (created if missing). Default `./data/pglite` */
  dataDir?: string;
  /** passed to PrismaClient's `log` option */
  log?: PrismaLogOption;
  /** default: the repository's prisma/migrations */
  migrationsDir?: string;
  /** default true; false skips applying migrations */
  migrate?: boolean;
  /** postgres only: pool size, default 10 */
  poolMax?: number;
  /** embedded only: PGlite on a thread of its own (pglite-thread.ts) instead of the caller's; default false */
  thread?: boolean;
}

export const DEFAULT_PGLITE_DIR = "./data/pglite";

/** prisma/migrations of this repository (BATON_MIGRATIONS_DIR overrides). */
export function defaultMigrationsDir(): string {
  if (process.env.BATON_MIGRATIONS_DIR) return path.resolve(process.env.BATON_MIGRATIONS_DIR);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.resolve(here, "../../prisma/migrations");
  // when bundled (e.g. by Next.js) import.meta.url may point elsewhere: fall back to cwd
  return existsSync(beside) ? beside : path.resolve("prisma/migrations");
}

/**
 * Socket.IO's PostgreSQL adapter keeps payloads over 8 kB in this table (not in the
 * schema, so not in a migration: a diff would drop it). Created under a lock: concurrent
 * `CREATE TABLE IF NOT EXISTS` of a table with a serial column fails on the catalog's
 * unique index.
 */
async function createSocketIoTable(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('baton:socket-io-table', 0))");
    await client.query(`CREATE TABLE IF NOT EXISTS socket_io_attachments (
      id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Prisma's PostgreSQL adapter for applying migrations to `pool`'s database. The adapter's
 * own `executeScript` splits a script on ";", which cuts a function's body apart (the
 * hot path's functions are a migration); here a script goes whole, as one simple-protocol
 * query (its statements in one implicit transaction), as Prisma's native engine sends it.
 */
export function migrationAdapterFor(pool: pg.Pool): SqlDriverAdapterFactory {
  const factory = new PrismaPg(pool);
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      adapter.executeScript = async (script) => {
        await pool.query(script);
      };
      return adapter;
    },
  };
}

/** Another pool on `pool`'s database, with `options` of its own (guarded: pg-guard.ts). */
export function poolBeside(pool: pg.Pool, options: pg.PoolConfig & { name: string; releaseBrokenClients?: boolean }): pg.Pool {
  const { name, releaseBrokenClients, ...config } = options;
  return guardPool(new pg.Pool({ ...pool.options, ...config }), { name, releaseBrokenClients });
}

/**
 * Applies pending migrations on PostgreSQL so that several processes can start at once and
 * a new version can start beside a running old one. The schema engine takes a session
 * advisory lock and never releases it (it relies on closing its connection), so it runs on
 * a dedicated one-connection pool that is ended right after: a shared pool would hand that
 * connection, lock and all, to whoever checks it out next (Socket.IO's LISTEN client keeps
 * it for the process's lifetime, and every other process then waits forever). Our own lock,
 * on another dedicated connection and released explicitly, makes late starters wait for the
 * one migrating instead of hitting the engine's 10 s lock timeout; inside it the engine
 * re-reads what is applied, so only one process applies each migration.
 */
async function migratePostgres(pool: pg.Pool, migrationsDir: string): Promise<string[]> {
  const { migrations } = await readMigrationsFolder(migrationsDir);
  // the common case (a restart, the second of several processes): nothing to apply, no lock
  if (await migrationsUpToDate(migrationAdapterFor(pool), migrations)) return [];
  const lockHolder = await pool.connect();
  let healthy = true;
  try {
    await lockHolder.query("SELECT pg_advisory_lock(hashtextextended('baton:migrations', 0))");
    const dedicated = poolBeside(pool, { name: "migrations", max: 1, idleTimeoutMillis: 1 });
    try {
      const { appliedMigrationNames } = await applyMigrations({ migrationsDir, adapterFactory: migrationAdapterFor(dedicated) });
      return appliedMigrationNames;
    } finally {
      await dedicated.end();
    }
  } catch (error) {
    healthy = false;
    throw error;
  } finally {
    if (healthy) {
      await lockHolder.query("SELECT pg_advisory_unlock(hashtextextended('baton:migrations', 0))").catch(() => {
        healthy = false;
      });
    }
    // a connection whose unlock did not happen is destroyed, which releases the lock too
    lockHolder.release(healthy ? undefined : true);
  }
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

export async function openDatabase(opts: OpenDatabaseOptions = {}): Promise<Database> {
  const url = opts.url?.trim() || undefined;
  if (url !== undefined && !isPostgresUrl(url)) {
    // never echo the whole URL: it may hold a password
    throw new Error(`DATABASE_URL must start with postgresql:// or postgres:// (got ${String(url).split(":")[0]}:…)`);
  }
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: opts.poolMax ?? 10 });
    return databaseFromPool(pool, opts);
  }
  const dataDir = path.resolve(opts.dataDir ?? DEFAULT_PGLITE_DIR);
  // private before PGlite creates anything in it, and whatever an older version left tightened (private-files.ts)
  await ensurePrivateDir(dataDir);
  await makeTreePrivate(dataDir);
  const database = opts.thread
    ? await databaseFromPGlite(await PGliteThread.open({ dataDir }), opts)
    : await databaseFromPGlite(await PGlite.create({ dataDir, extensions: PGLITE_EXTENSIONS }), opts);
  await makeTreePrivate(dataDir);
  return database;
}

/** Prisma's adapter for an in-thread PGlite or for the database's thread. */
export function prismaAdapterFor(pglite: PGlite | PGliteThread): SqlMigrationAwareDriverAdapterFactory {
  return pglite instanceof PGliteThread ? threadAdapterFactory(pglite) : new PrismaPGlite(pglite);
}

/**
 * Wraps an open PGlite instance or database thread (owned by the result from now on:
 * `close()` closes it), applying migrations unless `migrate: false`. A thread's statements
 * run off the server's thread, but not elsewhere: on a crowded machine the runs' early
 * start measured slower there, not faster (docs/decisions/2026-12-01-server-latency.md).
 */
export async function databaseFromPGlite(
  pglite: PGlite | PGliteThread,
  opts: Pick<OpenDatabaseOptions, "log" | "migrationsDir" | "migrate"> = {},
): Promise<Database> {
  const adapter = prismaAdapterFor(pglite);
  try {
    const applied = await migrate(adapter, opts);
    const prisma = new PrismaClient({ adapter, log: opts.log }) as PrismaClient;
    return {
      prisma,
      kind: "embedded",
      pglite,
      sql: pgliteSql(pglite),
      sqlElsewhere: false,
      appliedMigrations: applied,
      close: once(async () => {
        try {
          await prisma.$disconnect();
        } finally {
          if (!pglite.closed) await pglite.close();
        }
      }),
    };
  } catch (e) {
    if (!pglite.closed) await pglite.close().catch(() => {});
    throw e;
  }
}

/**
 * The hot path's own connections (`Database.sql`: a unit's one statement, the claims, the
 * token check), beside Prisma's pool. A connection's first call of `baton_write_units`
 * takes 20-30 ms on PostgreSQL against about 2 ms after: PL/pgSQL compiles the function
 * (about 10 ms) and plans each statement of it the first time it runs, per connection.
 * In one pool, Prisma's reads (an `include` opens several connections at once) left
 * connections on top of the pool's LIFO stack that had never run it, and the next step or
 * plan paid for that. Here every connection runs the same few functions and stays warm,
 * and idle ones are kept for five minutes, not ten seconds: a conversation's next step
 * often comes after a pause longer than that.
 */
const HOT_PATH_POOL = { max: 5, idleTimeoutMillis: 300_000 };

/**
 * Wraps a pg Pool (owned by the result from now on: `close()` ends it), applying
 * migrations unless `migrate: false`. The hot path gets a pool of its own on the same
 * database (HOT_PATH_POOL).
 */
export async function databaseFromPool(
  pool: pg.Pool,
  opts: Pick<OpenDatabaseOptions, "log" | "migrationsDir" | "migrate"> = {},
): Promise<Database> {
  // no dropped connection may crash the process (pg-guard.ts)
  guardPool(pool, { name: "prisma" });
  const adapter = new PrismaPg(pool);
  try {
    const applied = opts.migrate === false ? [] : await migratePostgres(pool, opts.migrationsDir ?? defaultMigrationsDir());
    await createSocketIoTable(pool);
    const prisma = new PrismaClient({ adapter, log: opts.log }) as PrismaClient;
    const hotPath = poolBeside(pool, { name: "hot_path", ...HOT_PATH_POOL });
    return {
      prisma,
      kind: "postgres",
      pool,
      hotPathPool: hotPath,
      sql: pgSql(hotPath),
      sqlElsewhere: true,
      appliedMigrations: applied,
      close: once(async () => {
        try {
          await prisma.$disconnect();
        } finally {
          await Promise.all([pool.end(), hotPath.end()]);
        }
      }),
    };
  } catch (e) {
    await pool.end().catch(() => {});
    throw e;
  }
}

async function migrate(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  opts: Pick<OpenDatabaseOptions, "migrationsDir" | "migrate">,
): Promise<string[]> {
  if (opts.migrate === false) return [];
  const { appliedMigrationNames } = await applyMigrations({
    migrationsDir: opts.migrationsDir ?? defaultMigrationsDir(),
    adapterFactory,
  });
  return appliedMigrationNames;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}
