// npm run db:backup [-- FILE]
//   Writes a consistent backup of the embedded database to FILE (default
//   $BATON_DATA_DIR/backups/baton-<time>.tgz). While Baton runs, the server itself takes
//   it (signalled, see server/ops/live-backup.ts); otherwise this opens the files directly.
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../server/db/pglite-extensions.ts";
import { backupPglite, type BackupResult } from "../server/ops/embedded-backup.ts";
import { liveOwnerOf, requestLiveBackup } from "../server/ops/live-backup.ts";
import { dataDirFromEnv, megabytes, pgliteDirOf, runCli } from "./ops-cli.ts";

runCli(async () => {
  if (process.env.DATABASE_URL?.trim()) {
    throw new Error("db:backup backs up the embedded database; with DATABASE_URL set, back up PostgreSQL with pg_dump");
  }
  const dataDir = dataDirFromEnv();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = path.resolve(process.argv[2] ?? path.join(dataDir, "backups", `baton-${stamp}.tgz`));
  const owner = liveOwnerOf(dataDir);
  let result: BackupResult;
  if (owner !== null) {
    result = await requestLiveBackup({ dataDir, pid: owner, file });
  } else {
    const pglite = await PGlite.create({ dataDir: pgliteDirOf(dataDir), extensions: PGLITE_EXTENSIONS });
    try {
      result = await backupPglite(pglite, file);
    } finally {
      await pglite.close();
    }
  }
  const from = owner !== null ? `from the running server (process ${owner})` : "(server not running)";
  console.log(
    `Backed up the embedded database ${from} to ${result.file}: ${megabytes(result.bytes)}, migration ${result.migrations.at(-1) ?? "none"}`,
  );
});
