// Databases for integration tests (*.int.test.ts): each call gives a migrated, EMPTY
// database of its own.
//
//   embedded: an in-memory PGlite cloned from a migrated template. The template is built
//             once per machine (per migrations-folder contents) and cached as a
//             `dumpDataDir` tarball in os.tmpdir(); a clone takes ~1 s.
//   postgres: a fresh `baton_test_<random>` DATABASE created from a migrated template
//             database `baton_tpl_<hash>` (built once per migrations-folder contents), and
//             dropped again by close(). Admin connection: TEST_DATABASE_URL, default
//             postgresql://postgres@127.0.0.1:5432/test.
//
//   const db = await createTestDatabase({ kind: "embedded" });
//   afterAll(() => db.close());

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../pglite-extensions.ts";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import {
  type Database,
  type PrismaLogOption,
  databaseFromPGlite,
  databaseFromPool,
  defaultMigrationsDir,
  migrationAdapterFor,
} from "../database.ts";
import { PGliteThread } from "../pglite-thread.ts";
import { applyMigrations, hashMigrationsFolder } from "../schema-engine.ts";

export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

export interface TestDatabaseOptions {
  kind: "embedded" | "postgres";
  log?: PrismaLogOption;
  /** default: the repository's prisma/migrations */
  migrationsDir?: string;
  /** embedded only: on a thread of its own, as the server opens it (pglite-thread.ts); default in this thread */
  thread?: boolean;
}

export interface TestDatabase extends Database {
  /** postgres only: the connection string of this test's own database */
  url?: string;
}

export async function createTestDatabase(opts: TestDatabaseOptions): Promise<TestDatabase> {
  const migrationsDir = opts.migrationsDir ?? defaultMigrationsDir();
  return opts.kind === "embedded"
    ? createEmbeddedTestDatabase(migrationsDir, opts.log, opts.thread ?? false)
    : createPostgresTestDatabase(migrationsDir, opts.log);
}

// ─── embedded ─────────────────────────────────────────────────────────────────

const templateBlobs = new Map<string, Promise<Blob>>();

/** The migrated template's data dir as a gzipped tarball, built once per machine. */
export function pgliteTemplate(migrationsDir = defaultMigrationsDir()): Promise<Blob> {
  let p = templateBlobs.get(migrationsDir);
  if (!p) {
    p = buildPgliteTemplate(migrationsDir);
    p.catch(() => templateBlobs.delete(migrationsDir));
    templateBlobs.set(migrationsDir, p);
  }
  return p;
}

async function buildPgliteTemplate(migrationsDir: string): Promise<Blob> {
  const hash = (await hashMigrationsFolder(migrationsDir)).slice(0, 16);
  // a data dir only loads into the PGlite (PostgreSQL) version that wrote it
  const file = path.join(os.tmpdir(), `baton-pglite-template-${await pgliteVersion()}-${hash}.tgz`);
  if (existsSync(file)) {
    const bytes = await readFile(file);
    if (bytes.length > 0) return new Blob([bytes]);
  }
  const pglite = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  try {
    await applyMigrations({ migrationsDir, adapterFactory: new PrismaPGlite(pglite) });
    const dump = await pglite.dumpDataDir("gzip");
    const bytes = new Uint8Array(await dump.arrayBuffer());
    // write-then-rename so a concurrent reader never sees half a tarball
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await writeFile(tmp, bytes);
    await rename(tmp, file);
    return new Blob([bytes]);
  } finally {
    await pglite.close();
  }
}

async function pgliteVersion(): Promise<string> {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      const { name, version } = JSON.parse(await readFile(pkg, "utf8")) as { name?: string; version?: string };
      if (name === "@electric-sql/pglite" && version) return version;
    }
    const up = path.dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

async function createEmbeddedTestDatabase(migrationsDir: string, log: PrismaLogOption | undefined, thread: boolean): Promise<TestDatabase> {
  const template = await pgliteTemplate(migrationsDir);
  if (thread) return databaseFromPGlite(await PGliteThread.open({ loadDataDir: template }), { log, migrate: false });
  const pglite = await PGlite.create({ loadDataDir: template, extensions: PGLITE_EXTENSIONS });
  return databaseFromPGlite(pglite, { log, migrate: false });
}

// ─── postgres ─────────────────────────────────────────────────────────────────

let available: Promise<boolean> | undefined;

/** Whether the test PostgreSQL server answers (memoised; 3 s connect timeout). */
export function postgresAvailable(): Promise<boolean> {
  available ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_ADMIN_URL, connectionTimeoutMillis: 3000 });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("SELECT 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return available;
}

/** The admin URL with another database name. */
export function postgresUrlFor(database: string, adminUrl = TEST_ADMIN_URL): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_ADMIN_URL, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
// serialises template builds across processes (an arbitrary constant)
const TEMPLATE_LOCK_KEY = 0x6261746f6e;
const templateNames = new Map<string, Promise<string>>();

/** Name of the migrated template database for `migrationsDir`, built if missing. */
export function postgresTemplate(migrationsDir = defaultMigrationsDir()): Promise<string> {
  let p = templateNames.get(migrationsDir);
  if (!p) {
    p = buildPostgresTemplate(migrationsDir);
    p.catch(() => templateNames.delete(migrationsDir));
    templateNames.set(migrationsDir, p);
  }
  return p;
}

async function buildPostgresTemplate(migrationsDir: string): Promise<string> {
  const name = `baton_tpl_${(await hashMigrationsFolder(migrationsDir)).slice(0, 16)}`;
  await withAdmin(async (admin) => {
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      const found = await admin.query<{ datistemplate: boolean }>("SELECT datistemplate FROM pg_database WHERE datname = $1", [name]);
      // marked as template only once fully migrated: anything else is a leftover
      if (found.rows[0]?.datistemplate) return;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      const pool = new pg.Pool({ connectionString: postgresUrlFor(name), max: 2 });
      pool.on("error", () => {});
      try {
        await applyMigrations({ migrationsDir, adapterFactory: migrationAdapterFor(pool) });
      } finally {
        await pool.end();
      }
      await admin.query(`ALTER DATABASE ${quoteIdent(name)} IS_TEMPLATE true`);
    } finally {
      await dropStaleTestDatabases(admin).catch(() => {});
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]).catch(() => {});
    }
  });
  return name;
}

/**
 * Drops test databases a crashed run left behind: named with their creation time more
 * than an hour ago AND with nobody connected. The server is shared (several checkouts,
 * long soak runs), so a database someone still uses is never dropped: no FORCE, and
 * DROP DATABASE itself refuses one that gained a connection meanwhile.
 */
async function dropStaleTestDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database d WHERE datname LIKE 'baton\\_test\\_%'
       AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
  );
  const cutoff = Date.now() - 60 * 60 * 1000;
  for (const { datname } of rows) {
    const created = parseInt(datname.split("_")[2] ?? "", 36);
    if (Number.isFinite(created) && created < cutoff) {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)}`).catch(() => {});
    }
  }
}

/**
 * An empty, unmigrated scratch database (for tests of migrating itself): its URL and a
 * drop() that removes it.
 */
export async function createScratchPostgresDatabase(template?: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `baton_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${quoteIdent(name)}${template ? ` TEMPLATE ${quoteIdent(template)}` : ""}`));
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: postgresUrlFor(name),
    drop: () =>
      (dropped ??= withAdmin(async (admin) => {
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      })),
  };
}

async function createPostgresTestDatabase(migrationsDir: string, log?: PrismaLogOption): Promise<TestDatabase> {
  if (!(await postgresAvailable())) {
    throw new Error(`PostgreSQL is not reachable at ${TEST_ADMIN_URL} (set TEST_DATABASE_URL)`);
  }
  const template = await postgresTemplate(migrationsDir);
  const scratch = await createScratchPostgresDatabase(template);
  try {
    const pool = new pg.Pool({ connectionString: scratch.url, max: 10 });
    const db = await databaseFromPool(pool, { log, migrate: false });
    const close = db.close.bind(db);
    let closed: Promise<void> | undefined;
    return {
      ...db,
      url: scratch.url,
      close: () =>
        (closed ??= (async () => {
          try {
            await close();
          } finally {
            await scratch.drop();
          }
        })()),
    };
  } catch (e) {
    await scratch.drop().catch(() => {});
    throw e;
  }
}
