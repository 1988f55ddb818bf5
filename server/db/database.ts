// Opening Baton's database: embedded PGlite (PostgreSQL in WASM, in-process, persisted in a
// directory) when no URL is configured, else PostgreSQL through a pg Pool. Either way the
// pending migrations of prisma/migrations are applied before the client is handed out.
//
// PGlite is ONE connection: inside an interactive `prisma.$transaction(async (tx) => …)`
// use only `tx`; touching `prisma` (or the PGlite instance) there waits for the
// transaction to end, i.e. hangs until it times out.

import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { DATABASE_FUNCTIONS } from "./database-functions.ts";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { type Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { applyMigrations } from "./schema-engine.ts";

export type DatabaseKind = "embedded" | "postgres";

export interface Database {
  prisma: PrismaClient;
  kind: DatabaseKind;
  /** Disconnects Prisma, then closes the PGlite instance / ends the pool. Idempotent. */
  close(): Promise<void>;
  /** embedded only: the PGlite instance (raw SQL, `listen`); one connection, shared with `prisma` */
  pglite?: PGlite;
  /** postgres only: the pool `prisma` uses (raw SQL, LISTEN/NOTIFY on a checked-out client) */
  pool?: pg.Pool;
  /** names of the migrations applied while opening (empty when the schema was up to date) */
  appliedMigrations: string[];
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

async function withFunctionsLock(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('baton:functions', 0))");
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
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
  await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create({ dataDir });
  return databaseFromPGlite(pglite, opts);
}

/**
 * Wraps an open PGlite instance (owned by the result from now on: `close()` closes it),
 * applying migrations unless `migrate: false`.
 */
export async function databaseFromPGlite(
  pglite: PGlite,
  opts: Pick<OpenDatabaseOptions, "log" | "migrationsDir" | "migrate"> = {},
): Promise<Database> {
  const adapter = new PrismaPGlite(pglite);
  try {
    const applied = await migrate(adapter, opts);
    for (const sql of DATABASE_FUNCTIONS) await pglite.exec(sql);
    const prisma = new PrismaClient({ adapter, log: opts.log }) as PrismaClient;
    return {
      prisma,
      kind: "embedded",
      pglite,
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
 * Wraps a pg Pool (owned by the result from now on: `close()` ends it), applying
 * migrations unless `migrate: false`.
 */
export async function databaseFromPool(
  pool: pg.Pool,
  opts: Pick<OpenDatabaseOptions, "log" | "migrationsDir" | "migrate"> = {},
): Promise<Database> {
  // an idle client losing its connection must not crash the process
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool);
  try {
    const applied = await migrate(adapter, opts);
    // serialised: concurrent CREATE OR REPLACE of one function can conflict on its catalog row
    await withFunctionsLock(pool, async (client) => {
      for (const sql of DATABASE_FUNCTIONS) await client.query(sql);
    });
    const prisma = new PrismaClient({ adapter, log: opts.log }) as PrismaClient;
    return {
      prisma,
      kind: "postgres",
      pool,
      appliedMigrations: applied,
      close: once(async () => {
        try {
          await prisma.$disconnect();
        } finally {
          await pool.end();
        }
      }),
    };
  } catch (e) {
    await pool.end().catch(() => {});
    throw e;
  }
}

async function migrate(
  adapterFactory: PrismaPGlite | PrismaPg,
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
