// npm run db:restore -- FILE
//   Replaces the embedded database with the backup in FILE. Stop Baton first. The
//   replaced data directory is kept beside it as pglite.before-restore-<time>.
import { restorePglite } from "../server/ops/embedded-backup.ts";
import { liveOwnerOf } from "../server/ops/live-backup.ts";
import { dataDirFromEnv, pgliteDirOf, runCli } from "./ops-cli.ts";

runCli(async () => {
  const file = process.argv[2];
  if (!file) throw new Error("usage: npm run db:restore -- FILE (a backup written by npm run db:backup)");
  const dataDir = dataDirFromEnv();
  const owner = liveOwnerOf(dataDir);
  if (owner !== null) throw new Error(`Baton is running on this database (process ${owner}); stop it, then restore`);
  const { keptOld, migrations } = await restorePglite({ file, dataDir: pgliteDirOf(dataDir) });
  console.log(`Restored ${file} (migration ${migrations.at(-1) ?? "none"}) into ${pgliteDirOf(dataDir)}.`);
  if (keptOld) console.log(`The database it replaced is kept in ${keptOld}.`);
});
