import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, defaultMigrationsDir, openDatabase, prismaAdapterFor } from "./database.ts";
import { applyMigrations, readMigrationsFolder } from "./schema-engine.ts";
import { TEST_ADMIN_URL, createScratchPostgresDatabase, createTestDatabase, postgresAvailable } from "./testing/test-database.ts";

const pgUp = await postgresAvailable();
if (!pgUp) console.warn("PostgreSQL at 127.0.0.1:5432 is unreachable: skipping the postgres tests");

const { migrations } = await readMigrationsFolder(defaultMigrationsDir());
const allMigrationNames = migrations.map((m) => m.name);

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    console.log(`${label}: ${Math.round(performance.now() - t)} ms`);
  }
}

async function recordedMigrations(db: Database): Promise<string[]> {
  const rows = await db.prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations
    WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`;
  return rows.map((r) => r.migration_name);
}

/** Total rows over every table but _prisma_migrations. */
async function totalRows(db: Database): Promise<number> {
  const p = db.prisma;
  const counts = await Promise.all([
    p.user.count(),
    p.session.count(),
    p.account.count(),
    p.verification.count(),
    p.invite.count(),
    p.agent.count(),
    p.conversation.count(),
    p.membership.count(),
    p.conversationAgent.count(),
    p.message.count(),
    p.plan.count(),
    p.planStep.count(),
    p.run.count(),
    p.stepEvent.count(),
    p.form.count(),
    p.formAnswer.count(),
    p.artifact.count(),
    p.conversationEvent.count(),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

async function advisoryLockInTransaction(db: Database): Promise<void> {
  const conversation = await db.prisma.conversation.create({ data: { title: "locks" } });
  const seq = await db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${42}::bigint)`;
    const c = await tx.conversation.update({
      where: { id: conversation.id },
      data: { lastSeq: { increment: 1 } },
    });
    await tx.conversationEvent.create({
      data: { conversationId: c.id, seq: c.lastSeq, type: "test", payload: { ok: true } },
    });
    return c.lastSeq;
  });
  expect(seq).toBe(1);
  expect(await db.prisma.conversationEvent.count({ where: { conversationId: conversation.id } })).toBe(1);
}

describe("embedded (PGlite)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "baton-db-test-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("migrates a fresh data dir, applies nothing on reopen, keeps data across reopen", async () => {
    const dir = path.join(dataDir, "pglite"); // does not exist yet: must be created
    const db = await timed("embedded: open fresh", () => openDatabase({ dataDir: dir }));
    try {
      expect(db.kind).toBe("embedded");
      expect(db.pglite).toBeDefined();
      expect(db.pool).toBeUndefined();
      expect(db.appliedMigrations).toEqual(allMigrationNames);
      expect(await recordedMigrations(db)).toEqual(allMigrationNames);
      // the engine itself (no fast path) agrees that nothing is pending
      const again = await applyMigrations({
        migrationsDir: defaultMigrationsDir(),
        adapterFactory: prismaAdapterFor(db.pglite!),
        fastPath: false,
      });
      expect(again.appliedMigrationNames).toEqual([]);
      await db.prisma.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.com" } });
    } finally {
      await db.close();
    }

    const reopened = await timed("embedded: reopen", () => openDatabase({ dataDir: dir }));
    try {
      expect(reopened.appliedMigrations).toEqual([]);
      expect(await recordedMigrations(reopened)).toEqual(allMigrationNames);
      const user = await reopened.prisma.user.findUnique({ where: { id: "u1" } });
      expect(user?.email).toBe("ada@example.com");
      // raw access to the same database
      const raw = await reopened.pglite!.query<{ n: number }>(`SELECT count(*)::int AS n FROM "user"`);
      expect(raw.rows[0]?.n).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it("takes pg_advisory_xact_lock inside an interactive transaction", async () => {
    const db = await createTestDatabase({ kind: "embedded" });
    try {
      await advisoryLockInTransaction(db);
    } finally {
      await db.close();
    }
  });

  it("gives each test database its own empty, migrated clone", async () => {
    const a = await timed("embedded: clone (first, may build the template)", () => createTestDatabase({ kind: "embedded" }));
    const b = await timed("embedded: clone", () => createTestDatabase({ kind: "embedded" }));
    try {
      expect(await recordedMigrations(a)).toEqual(allMigrationNames);
      expect(await totalRows(a)).toBe(0);
      expect(await totalRows(b)).toBe(0);
      await a.prisma.agent.create({ data: { handle: "scout", name: "Scout" } });
      expect(await a.prisma.agent.count()).toBe(1);
      expect(await b.prisma.agent.count()).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe.skipIf(!pgUp)("postgres", () => {
  it("migrates an empty database, applies nothing on reopen", async () => {
    const scratch = await createScratchPostgresDatabase();
    try {
      const db = await timed("postgres: open fresh", () => openDatabase({ url: scratch.url }));
      try {
        expect(db.kind).toBe("postgres");
        expect(db.pool).toBeDefined();
        expect(db.pglite).toBeUndefined();
        expect(db.appliedMigrations).toEqual(allMigrationNames);
        expect(await recordedMigrations(db)).toEqual(allMigrationNames);
        // the migration locks went with the migrating: a second process must not wait on them
        const locks = await db.pool!.query(
          "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        expect(locks.rows).toEqual([]);
        const again = await applyMigrations({
          migrationsDir: defaultMigrationsDir(),
          adapterFactory: new PrismaPg(db.pool!),
          fastPath: false,
        });
        expect(again.appliedMigrationNames).toEqual([]);
        await db.prisma.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.com" } });
      } finally {
        await db.close();
      }
      const reopened = await timed("postgres: reopen", () => openDatabase({ url: scratch.url }));
      try {
        expect(reopened.appliedMigrations).toEqual([]);
        expect(await reopened.prisma.user.count()).toBe(1);
      } finally {
        await reopened.close();
      }
    } finally {
      await scratch.drop();
    }
  });

  it("runs the hot path's statements on a pool of their own, whose connections stay warm, and closes both pools", async () => {
    const db = await createTestDatabase({ kind: "postgres" });
    const hotPath = db.hotPathPool!;
    try {
      expect(hotPath).toBeDefined();
      expect(hotPath).not.toBe(db.pool);
      expect(hotPath.options.idleTimeoutMillis).toBe(300_000);
      const before = db.pool!.totalCount;
      const [{ pid }] = await db.sql<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
      expect(hotPath.totalCount).toBe(1);
      expect(db.pool!.totalCount).toBe(before);
      // the connection that ran it serves the next statement: the one whose plans are made
      const [{ pid: again }] = await db.sql<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
      expect(again).toBe(pid);
    } finally {
      await db.close();
    }
    expect(hotPath.ended).toBe(true);
  });

  it("takes pg_advisory_xact_lock inside an interactive transaction, and it excludes others", async () => {
    const db = await createTestDatabase({ kind: "postgres" });
    try {
      await advisoryLockInTransaction(db);
      // while one transaction holds the lock, another connection cannot take it
      await db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${7}::bigint)`;
        const other = await db.pool!.query<{ got: boolean }>("SELECT pg_try_advisory_xact_lock(7) AS got");
        expect(other.rows[0]?.got).toBe(false);
      });
      const after = await db.pool!.query<{ got: boolean }>("SELECT pg_try_advisory_xact_lock(7) AS got");
      expect(after.rows[0]?.got).toBe(true);
    } finally {
      await db.close();
    }
  });

  it("gives each test database its own empty, migrated database, dropped on close", async () => {
    const a = await timed("postgres: test database (first, may build the template)", () => createTestDatabase({ kind: "postgres" }));
    const b = await timed("postgres: test database", () => createTestDatabase({ kind: "postgres" }));
    try {
      expect(a.url).not.toBe(b.url);
      expect(await recordedMigrations(a)).toEqual(allMigrationNames);
      expect(await totalRows(a)).toBe(0);
      expect(await totalRows(b)).toBe(0);
      await a.prisma.agent.create({ data: { handle: "scout", name: "Scout" } });
      expect(await a.prisma.agent.count()).toBe(1);
      expect(await b.prisma.agent.count()).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    // close() dropped both databases
    const client = new pg.Client({ connectionString: TEST_ADMIN_URL });
    await client.connect();
    try {
      const names = [a.url, b.url].map((u) => new URL(u!).pathname.slice(1));
      const left = await client.query("SELECT datname FROM pg_database WHERE datname = ANY($1)", [names]);
      expect(left.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
