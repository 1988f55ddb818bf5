/**
 * Backups of the embedded database (PGlite). A backup is PGlite's own `dumpDataDir`
 * tarball (gzip): the whole PostgreSQL data directory, taken after a CHECKPOINT while
 * no query runs (PGlite serialises the dump with its queries), so it is what a crash at
 * that instant would leave — which PostgreSQL recovers from by design. A restore checks
 * the tarball opens and holds Baton's schema before it replaces anything, and keeps the
 * directory it replaces beside it.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../db/pglite-extensions.ts";
import type { EmbeddedDatabase } from "../db/database.ts";

export interface BackupResult {
  file: string;
  bytes: number;
  /** migrations recorded in the backup, newest last */
  migrations: string[];
}

/** What a backup needs of a running PGlite (in this thread or on its own). */
export type BackupSource = EmbeddedDatabase;

/** Writes a consistent backup of a running PGlite to `file` (write-then-rename). */
export async function backupPglite(pglite: BackupSource, file: string): Promise<BackupResult> {
  await pglite.exec("CHECKPOINT");
  const migrations = await appliedMigrations(pglite);
  const dump = await pglite.dumpDataDir("gzip");
  const bytes = new Uint8Array(await dump.arrayBuffer());
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const partial = `${file}.partial-${randomBytes(4).toString("hex")}`;
  // a backup is the whole database: readable by the server's user only
  await writeFile(partial, bytes, { mode: 0o600 });
  await rename(partial, file);
  return { file, bytes: bytes.length, migrations };
}

export class BackupError extends Error {
  override name = "BackupError";
}

/** Opens a backup in memory and reads what it holds; throws BackupError if it is not one. */
export async function inspectBackup(file: string): Promise<{ migrations: string[] }> {
  const pglite = await openBackup(file);
  try {
    return { migrations: await appliedMigrations(pglite) };
  } finally {
    await pglite.close();
  }
}

/** An in-memory PGlite holding a backup's data (the caller closes it). */
export async function openBackup(file: string): Promise<PGlite> {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  const bytes = await readFile(file);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ loadDataDir: new Blob([bytes]), extensions: PGLITE_EXTENSIONS });
  } catch (error) {
    throw new BackupError(`${file} is not a Baton backup (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    await appliedMigrations(pglite);
  } catch {
    await pglite.close();
    throw new BackupError(`${file} holds a database, but not Baton's (no migrations table)`);
  }
  return pglite;
}

/**
 * Replaces the data directory `dataDir` with the backup in `file`. The server must be
 * stopped (the caller checks). The old directory is kept as `<dataDir>.before-restore-<time>`.
 */
export async function restorePglite(input: {
  file: string;
  dataDir: string;
  now?: Date;
}): Promise<{ keptOld: string | null; migrations: string[] }> {
  const { migrations } = await inspectBackup(input.file);
  const dataDir = path.resolve(input.dataDir);
  const staging = `${dataDir}.restoring-${randomBytes(4).toString("hex")}`;
  const pglite = await PGlite.create({
    dataDir: staging,
    loadDataDir: new Blob([await readFile(input.file)]),
    extensions: PGLITE_EXTENSIONS,
  });
  await pglite.close();
  let keptOld: string | null = null;
  if (existsSync(dataDir)) {
    const stamp = (input.now ?? new Date()).toISOString().replace(/[:.]/g, "-");
    keptOld = `${dataDir}.before-restore-${stamp}`;
    await rename(dataDir, keptOld);
  }
  try {
    await rename(staging, dataDir);
  } catch (error) {
    if (keptOld) await rename(keptOld, dataDir);
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { keptOld, migrations };
}

async function appliedMigrations(pglite: Pick<EmbeddedDatabase, "query">): Promise<string[]> {
  const result = await pglite.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name`,
  );
  return result.rows.map((row) => row.migration_name);
}
