/**
 * Backups of the embedded database and the move to PostgreSQL, through the real
 * scripts (`npm run db:backup`, `db:restore`, `db:move-to-postgres`) against a real
 * executor process that keeps writing while it is backed up, and the machine's
 * PostgreSQL as the target.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "../db/pglite-extensions.ts";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchPostgresDatabase } from "../db/testing/test-database.ts";
import { openDatabase } from "../db/database.ts";
import type { PlanDTO } from "../protocol/dto.ts";
import { ExecutorProcess } from "../executor/testing/process-handle.ts";
import { copyWorkspace, MoveError } from "./move-to-postgres.ts";
import { pgliteSession, pgSession } from "./sql-session.ts";
import { openBackup } from "./embedded-backup.ts";
import { liveOwnerOf } from "./live-backup.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "baton-ops-"));
const env = { ...process.env, BATON_DATA_DIR: dataDir, DATABASE_URL: "" };
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

function script(name: string, args: string[] = []) {
  return run(process.execPath, ["--import", "tsx", path.join(root, "scripts", name), ...args], { env, cwd: root });
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error("expected the script to fail");
}

async function counts(session: { query<Row>(sql: string): Promise<{ rows: Row[] }> }) {
  const { rows } = await session.query<{ plans: string; events: string; runs: string; max_seq: string; last_seq: string }>(
    `SELECT (SELECT count(*) FROM "Plan")::text AS plans, (SELECT count(*) FROM "ConversationEvent")::text AS events,
            (SELECT count(*) FROM "Run")::text AS runs, (SELECT COALESCE(max(seq), 0) FROM "ConversationEvent")::text AS max_seq,
            (SELECT COALESCE(max("lastSeq"), 0) FROM "Conversation")::text AS last_seq`,
  );
  return rows[0];
}

describe("embedded backups and the move to PostgreSQL", () => {
  const backupFile = path.join(dataDir, "backups", "live.tgz");

  it("backs up while plans are running, and the backup is consistent", async () => {
    const server = await ExecutorProcess.start({ BATON_DATA_DIR: dataDir, DATABASE_URL: "" });
    cleanups.push(() => server.kill());
    const conversation = await server.request<{ id: string }>({ type: "conversation", title: "ops", agents: ["researcher", "analyst"] });
    const plans: PlanDTO[] = [];
    for (let i = 0; i < 3; i++) {
      plans.push(
        await server.request<PlanDTO>({
          type: "submit",
          conversationId: conversation.id,
          raw: {
            title: `plan ${i}`,
            steps: [1, 2, 3, 4].map((index) => ({
              index,
              title: `s${index}`,
              assignee: index % 2 ? "researcher" : "analyst",
              input: `@offline sleep=${30 * index} step ${index}`,
              wait_for: index > 2 ? [index - 2] : [],
            })),
          },
        }),
      );
    }
    // a second server on the same files is refused, and so is a restore under the running one
    expect(liveOwnerOf(dataDir)).toBe(server.child.pid);
    expect(await failure(ExecutorProcess.start({ BATON_DATA_DIR: dataDir, DATABASE_URL: "" }))).toMatch(/exited early \(1\)/);
    const { stdout } = await script("db-backup.ts", [backupFile]);
    expect(stdout).toMatch(/from the running server \(process \d+\)/);
    expect(await failure(script("db-restore.ts", [backupFile]))).toMatch(/Baton is running on this database/);

    // the backup opens, and every conversation's lastSeq equals its newest event's seq:
    // no transaction was captured half-written
    const copy = await openBackup(backupFile);
    try {
      const { rows } = await copy.query<{ id: string; last: number; max: number | null; n: string }>(
        `SELECT c.id, c."lastSeq" AS last, max(e.seq) AS max, count(e.*)::text AS n
           FROM "Conversation" c LEFT JOIN "ConversationEvent" e ON e."conversationId" = c.id GROUP BY c.id`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.max ?? 0).toBe(row.last);
        expect(Number(row.n)).toBe(row.last); // gap-free seq from 1
      }
    } finally {
      await copy.close();
    }

    // let the plans finish, stop, then restore the mid-run backup: the executor finishes them again
    for (const plan of plans) {
      await expect
        .poll(async () => (await server.request<PlanDTO>({ type: "plan", planId: plan.id })).status, { timeout: 60_000 })
        .toBe("completed");
    }
    await server.request({ type: "stop" });
    const restored = await script("db-restore.ts", [backupFile]);
    expect(restored.stdout).toMatch(/The database it replaced is kept in .*before-restore-/);
    const again = await ExecutorProcess.start({ BATON_DATA_DIR: dataDir, DATABASE_URL: "" });
    cleanups.push(() => again.kill());
    for (const plan of plans) {
      await expect
        .poll(async () => (await again.request<PlanDTO>({ type: "plan", planId: plan.id })).status, { timeout: 60_000 })
        .toBe("completed");
    }
    await again.request({ type: "stop" });
  });

  it("refuses a file that is not a backup, naming it", async () => {
    const bogus = path.join(dataDir, "not-a-backup.tgz");
    await import("node:fs/promises").then((fs) => fs.writeFile(bogus, "hello"));
    expect(await failure(script("db-restore.ts", [bogus]))).toContain("not-a-backup.tgz is not a Baton backup");
  });

  it("moves the workspace into an empty PostgreSQL with every row, seq and byte", async () => {
    const scratch = await createScratchPostgresDatabase();
    cleanups.push(() => scratch.drop());
    const { stdout } = await script("db-move-to-postgres.ts", [scratch.url]);
    expect(stdout).toMatch(/Moved \d+ rows in \d+ tables .* counts verified/);

    const source = await PGlite.create({ dataDir: path.join(dataDir, "pglite"), extensions: PGLITE_EXTENSIONS });
    const target = await openDatabase({ url: scratch.url, poolMax: 2 });
    cleanups.push(() => target.close());
    const client = await target.pool!.connect();
    try {
      const [a, b] = [await counts(pgliteSession(source)), await counts(pgSession(client))];
      expect(Number(a.plans)).toBeGreaterThan(0);
      expect(b).toEqual(a);
      // the copy keeps working: a new event on PostgreSQL takes the next seq, and the
      // StepEvent id sequence moved past the copied ids
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO "StepEvent" ("planId", "stepIndex", phase, message) SELECT "planId", "stepIndex", phase, message FROM "StepEvent" LIMIT 1 RETURNING id::text`,
      );
      const { rows: max } = await client.query<{ max: string }>(`SELECT max(id)::text AS max FROM "StepEvent"`);
      expect(rows[0].id).toBe(max[0].max);

      // a second move into the now non-empty database is refused and changes nothing
      const error = await copyWorkspace({ source: pgliteSession(source), target: pgSession(client) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MoveError);
      expect(String(error)).toMatch(/PostgreSQL is not empty: table "\w+" has \d+ rows/);
    } finally {
      client.release();
      await source.close();
    }
  });
});
