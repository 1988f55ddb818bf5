/** A backup of the embedded database taken through its thread (BATON_PGLITE_THREAD=1). */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PGliteThread } from "../db/pglite-thread.ts";
import { backupPglite, inspectBackup } from "./embedded-backup.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "baton-thread-backup-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("backs up from the thread, with the migrations it holds", async () => {
  const thread = await PGliteThread.open({ dataDir: path.join(dir, "pglite") });
  try {
    await thread.exec(`CREATE TABLE "_prisma_migrations" (migration_name text, finished_at timestamptz)`);
    await thread.query(`INSERT INTO "_prisma_migrations" VALUES ($1, now())`, ["0001_first"]);
    const backup = await backupPglite(thread, path.join(dir, "backup.tgz"));
    expect(backup.migrations).toEqual(["0001_first"]);
    expect(await inspectBackup(backup.file)).toEqual({ migrations: ["0001_first"] });
  } finally {
    await thread.close();
  }
});
