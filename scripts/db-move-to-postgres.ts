// npm run db:move-to-postgres -- postgresql://… [--from-backup FILE]
//   Copies the embedded workspace (or a backup of it) into an EMPTY PostgreSQL database:
//   users, conversations, plans, runs, events with their seq, artifacts — every table —
//   and verifies the row counts before committing. Stop Baton first.
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../server/db/pglite-extensions.ts";
import { databaseFromPGlite, isPostgresUrl, openDatabase } from "../server/db/database.ts";
import { openBackup } from "../server/ops/embedded-backup.ts";
import { liveOwnerOf } from "../server/ops/live-backup.ts";
import { copyWorkspace } from "../server/ops/move-to-postgres.ts";
import { pgliteSession, pgSession } from "../server/ops/sql-session.ts";
import { dataDirFromEnv, pgliteDirOf, runCli } from "./ops-cli.ts";

runCli(async () => {
  const args = process.argv.slice(2);
  const url = args.find((arg) => !arg.startsWith("--") && isPostgresUrl(arg));
  const backupAt = args.indexOf("--from-backup");
  const backupFile = backupAt >= 0 ? args[backupAt + 1] : undefined;
  if (!url) throw new Error("usage: npm run db:move-to-postgres -- postgresql://user@host:5432/db [--from-backup FILE]");
  if (backupAt >= 0 && !backupFile) throw new Error("--from-backup needs a file");

  const dataDir = dataDirFromEnv();
  let pglite: PGlite;
  if (backupFile) {
    pglite = await openBackup(backupFile);
  } else {
    const owner = liveOwnerOf(dataDir);
    if (owner !== null)
      throw new Error(`Baton is running on the embedded database (process ${owner}); stop it, or move a backup with --from-backup`);
    pglite = await PGlite.create({ dataDir: pgliteDirOf(dataDir), extensions: PGLITE_EXTENSIONS });
  }
  // both sides at this version's migrations before the copy
  const source = await databaseFromPGlite(pglite);
  const target = await openDatabase({ url, poolMax: 2 });
  const client = await target.pool!.connect();
  try {
    const started = Date.now();
    const report = await copyWorkspace({
      source: pgliteSession(pglite),
      target: pgSession(client),
      onTable: (table, rows) => console.log(`  ${table.padEnd(24)} ${rows} rows`),
    });
    console.log(
      `Moved ${report.totalRows} rows in ${report.tables.length} tables in ${((Date.now() - started) / 1000).toFixed(1)} s; counts verified.`,
    );
    console.log("Start Baton with DATABASE_URL set to that database (and the same BETTER_AUTH_SECRET, which is in data/auth-secret).");
  } finally {
    client.release();
    await target.close();
    await source.close();
  }
});
