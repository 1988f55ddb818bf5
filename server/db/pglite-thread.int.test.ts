// The embedded database on its own thread (pglite-thread.ts): Prisma through the forwarding
// adapter answers as it does on an in-thread PGlite (rows, types, errors, transactions),
// the server's thread stays free while a statement runs, and a thread that cannot start
// or is closed says so instead of hanging.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.ts";
import { databaseErrorInfo } from "./database-errors.ts";
import { DatabaseThreadError, PGliteThread } from "./pglite-thread.ts";
import { defaultMigrationsDir, openDatabase } from "./database.ts";
import { readMigrationsFolder } from "./schema-engine.ts";
import { createTestDatabase, type TestDatabase } from "./testing/test-database.ts";

describe("the embedded database on its thread", () => {
  let db: TestDatabase;
  let inThread: TestDatabase;
  beforeAll(async () => {
    [db, inThread] = await Promise.all([createTestDatabase({ kind: "embedded", thread: true }), createTestDatabase({ kind: "embedded" })]);
  });
  afterAll(async () => {
    await Promise.all([db?.close(), inThread?.close()]);
  });

  it("is the thread", () => {
    expect(db.pglite).toBeInstanceOf(PGliteThread);
    expect(inThread.pglite).not.toBeInstanceOf(PGliteThread);
  });

  it("reads back through Prisma what it wrote, types and all, as an in-thread PGlite does", async () => {
    const read = async (target: TestDatabase) => {
      const conversation = await target.prisma.conversation.create({ data: { id: "c1", title: "typed" } });
      await target.prisma.conversationEvent.create({
        data: { conversationId: conversation.id, seq: 1, type: "test", payload: { n: 1, text: "héllo 😀", list: [null, true] } },
      });
      const found = await target.prisma.conversation.findUniqueOrThrow({ where: { id: "c1" }, include: { events: true } });
      const { createdAt, updatedAt, events, ...rest } = found;
      expect(createdAt).toBeInstanceOf(Date);
      expect(updatedAt).toBeInstanceOf(Date);
      return { rest, events: events.map(({ createdAt: at, ...event }) => ({ ...event, at: at instanceof Date })) };
    };
    const [threaded, local] = [await read(db), await read(inThread)];
    expect(threaded).toEqual(local);
    expect(threaded.events[0]?.payload).toEqual({ n: 1, text: "héllo 😀", list: [null, true] });
  });

  it("turns a refused write into Prisma's own error, with the SQLSTATE readable", async () => {
    await db.prisma.agent.create({ data: { handle: "twin", name: "Twin" } });
    const error = await db.prisma.agent.create({ data: { handle: "twin", name: "Again" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((error as Prisma.PrismaClientKnownRequestError).code).toBe("P2002");
    const raw = await db.sql("SELECT 1 / 0", []).catch((e: unknown) => e);
    expect(databaseErrorInfo(raw)).toEqual({ sqlState: "22012", message: "division by zero" });
  });

  it("commits a transaction's writes and rolls a failed one back", async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${42}::bigint)`;
      await tx.conversation.create({ data: { id: "kept", title: "kept" } });
    });
    const failed = await db.prisma
      .$transaction(async (tx) => {
        await tx.conversation.create({ data: { id: "dropped", title: "dropped" } });
        throw new Error("roll back");
      })
      .catch((error: Error) => error.message);
    expect(failed).toBe("roll back");
    const ids = await db.prisma.conversation.findMany({ where: { id: { in: ["kept", "dropped"] } }, select: { id: true } });
    expect(ids).toEqual([{ id: "kept" }]);
  });

  it("keeps the server's thread free while a statement runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      // pg_sleep in WebAssembly busy-waits: on the server's thread no timer could fire meanwhile
      await db.sql("SELECT pg_sleep(0.3)::text", []);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("a database thread that cannot serve", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "baton-thread-test-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("migrates a fresh data dir through the thread, and applies nothing on reopen", async () => {
    const { migrations } = await readMigrationsFolder(defaultMigrationsDir());
    const dataDir = path.join(dir, "migrated");
    const db = await openDatabase({ dataDir, thread: true });
    try {
      expect(db.pglite).toBeInstanceOf(PGliteThread);
      expect(db.appliedMigrations).toEqual(migrations.map((migration) => migration.name));
      await db.prisma.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.com" } });
    } finally {
      await db.close();
    }
    const reopened = await openDatabase({ dataDir, thread: true });
    try {
      expect(reopened.appliedMigrations).toEqual([]);
      expect(await reopened.prisma.user.count()).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it("refuses to open where no data directory can be, naming it", async () => {
    const file = path.join(dir, "a-file");
    await writeFile(file, "not a directory");
    const error = await PGliteThread.open({ dataDir: path.join(file, "pglite") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseThreadError);
    expect((error as Error).message).toContain(path.join(file, "pglite"));
  });

  it("answers every request after close with an error, closing once", async () => {
    const thread = await PGliteThread.open({ dataDir: path.join(dir, "pglite") });
    expect((await thread.query<{ n: number }>("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
    await Promise.all([thread.close(), thread.close()]);
    expect(thread.closed).toBe(true);
    await expect(thread.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseThreadError);
  });
});
