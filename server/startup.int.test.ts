/**
 * Safe starts on PostgreSQL, with real processes running the server's boot (serve.ts,
 * without the pages): three started within 100 ms on a fresh database all become
 * ready and serve, and seed one workspace; a new version with an extra migration
 * starts beside a running old one, and the old one still works (and restarts) beside it.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { defaultMigrationsDir } from "./db/database.ts";
import { readMigrationsFolder } from "./db/schema-engine.ts";
import { createScratchPostgresDatabase, postgresAvailable } from "./db/testing/test-database.ts";
import { DEMO_CONVERSATION_TITLE } from "./services/seed.ts";
import { READINESS_PATH } from "./serve.ts";
import { ServerProcess } from "./testing/server-handle.ts";

// BATON_STARTUP_TRIES=6 repeats the three-process start (each on its own fresh database)
const TRIES = Number(process.env.BATON_STARTUP_TRIES ?? 1);
const READY_WITHIN_MS = 90_000;

let tmp: string;
const processes: ServerProcess[] = [];
const scratch: { drop(): Promise<void> }[] = [];

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
  tmp = await mkdtemp(path.join(os.tmpdir(), "baton-startup-"));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
});

afterAll(async () => {
  for (const db of scratch) await db.drop().catch(() => {});
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function spawn(url: string, extra: Record<string, string> = {}): ServerProcess {
  const child = ServerProcess.spawn({
    DATABASE_URL: url,
    BATON_DATA_DIR: tmp,
    BETTER_AUTH_SECRET: "startup-test-secret-0123456789abcdef",
    BATON_SEED_DEMO: "1",
    ...extra,
  });
  processes.push(child);
  return child;
}

function withinTime<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not ready within ${READY_WITHIN_MS / 1000} s`)), READY_WITHIN_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function probe(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${READINESS_PATH}`);
  return response.status;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

it(
  `three processes started within 100 ms on a fresh database all become ready (${TRIES} tries)`,
  async () => {
    const { migrations } = await readMigrationsFolder(defaultMigrationsDir());
    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      const db = await createScratchPostgresDatabase();
      scratch.push(db);
      const started = Date.now();
      const trio: ServerProcess[] = [];
      for (let i = 0; i < 3; i++) {
        trio.push(spawn(db.url, { BATON_INSTANCE_ID: `start-${attempt}-${i}` }));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      const settled = await Promise.allSettled(trio.map((p, i) => withinTime(p.ready, `process ${i}`)));
      const failures = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason).slice(0, 400)] : []));
      outcomes.push(
        `try ${attempt}: ${3 - failures.length}/3 ready in ${Date.now() - started} ms${failures.length ? ` — ${failures.join(" | ")}` : ""}`,
      );
      console.log(outcomes.at(-1));
      if (failures.length === 0) {
        for (const s of settled) expect(await probe((s as PromiseFulfilledResult<{ port: number }>).value.port)).toBe(200);
        // one workspace, whoever seeded it
        const [agents] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM "Agent"`);
        const [demos] = await query<{ n: number }>(
          db.url,
          `SELECT count(*)::int AS n FROM "Conversation" WHERE title = '${DEMO_CONVERSATION_TITLE}'`,
        );
        const [members] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM "ConversationAgent"`);
        const applied = await query<{ migration_name: string }>(
          db.url,
          `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`,
        );
        expect(agents.n).toBe(4);
        expect(demos.n).toBe(1);
        expect(members.n).toBe(4);
        expect(applied.map((row) => row.migration_name).sort()).toEqual(migrations.map((m) => m.name));
      }
      await Promise.all(processes.splice(0).map((p) => p.kill()));
    }
    expect(outcomes.filter((line) => !line.includes(" 3/3 "))).toEqual([]);
  },
  120_000 * TRIES,
);

it("a new version with an extra migration starts beside a running old one; the old one keeps working and restarts", async () => {
  const db = await createScratchPostgresDatabase();
  scratch.push(db);
  // the new version: this repository's migrations plus one additive migration
  const newMigrations = path.join(tmp, "migrations-next");
  await cp(defaultMigrationsDir(), newMigrations, { recursive: true });
  await mkdir(path.join(newMigrations, "29991231000000_rolling_upgrade_probe"));
  await writeFile(
    path.join(newMigrations, "29991231000000_rolling_upgrade_probe", "migration.sql"),
    `ALTER TABLE "Conversation" ADD COLUMN "rollingUpgradeProbe" TEXT;\nCREATE TABLE "RollingUpgradeProbe" ("id" SERIAL PRIMARY KEY);\n`,
  );

  const old = spawn(db.url, { BATON_INSTANCE_ID: "old" });
  const oldPort = (await withinTime(old.ready, "old version")).port;
  const next = spawn(db.url, { BATON_INSTANCE_ID: "new", BATON_MIGRATIONS_DIR: newMigrations });
  const newPort = (await withinTime(next.ready, "new version")).port;
  expect(await probe(oldPort)).toBe(200);
  expect(await probe(newPort)).toBe(200);
  const column = await query(
    db.url,
    `SELECT 1 FROM information_schema.columns WHERE table_name = 'Conversation' AND column_name = 'rollingUpgradeProbe'`,
  );
  expect(column).toHaveLength(1);

  // the old version still reads and writes the upgraded schema: a plan runs to the end on it
  const conversation = await old.request<{ id: string }>({ type: "conversation", title: "rolling", agents: ["researcher", "writer"] });
  const plan = await old.request<{ id: string }>({
    type: "submit",
    conversationId: conversation.id,
    raw: {
      title: "beside the new version",
      steps: [
        { index: 1, title: "a", assignee: "researcher", input: "sleep=5", wait_for: [] },
        { index: 2, title: "b", assignee: "writer", input: "sleep=5", wait_for: [1] },
      ],
    },
  });
  const deadline = Date.now() + 30_000;
  let status = "";
  while (Date.now() < deadline) {
    [{ status }] = await query<{ status: string }>(db.url, `SELECT status FROM "Plan" WHERE id = '${plan.id}'`);
    if (status !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(status).toBe("completed");

  // rolling back or restarting the old version beside the new schema also works
  await old.kill();
  const again = spawn(db.url, { BATON_INSTANCE_ID: "old-again" });
  expect(await probe((await withinTime(again.ready, "old version, restarted")).port)).toBe(200);
}, 240_000);
