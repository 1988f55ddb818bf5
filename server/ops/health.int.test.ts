import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultMigrationsDir } from "../db/database.ts";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createHealth } from "./health.ts";

let db: TestDatabase;
const newerFolder = mkdtempSync(path.join(tmpdir(), "baton-migrations-"));
beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  // this version's migrations plus one the database has never seen
  cpSync(defaultMigrationsDir(), newerFolder, { recursive: true });
  mkdirSync(path.join(newerFolder, "29991231000000_future"));
  writeFileSync(path.join(newerFolder, "29991231000000_future", "migration.sql"), "SELECT 1;");
});
afterAll(async () => {
  await db.close();
  rmSync(newerFolder, { recursive: true, force: true });
});

it("is ready when the database answers and every shipped migration is applied", async () => {
  const health = await createHealth({ prisma: db.prisma, migrationsDir: defaultMigrationsDir(), isDraining: () => false });
  expect(await health.readiness()).toEqual({ ready: true, checks: { database: "ok", migrations: "ok", draining: false } });
});

it("is not ready while draining, or when this version ships a migration not yet applied", async () => {
  let draining = true;
  const health = await createHealth({ prisma: db.prisma, migrationsDir: defaultMigrationsDir(), isDraining: () => draining });
  expect(await health.readiness()).toMatchObject({ ready: false, checks: { draining: true } });
  draining = false;
  const newer = await createHealth({ prisma: db.prisma, migrationsDir: newerFolder, isDraining: () => false });
  expect(await newer.readiness()).toMatchObject({ ready: false, checks: { database: "ok", migrations: "pending" } });
});

it("is not ready when the database is gone", async () => {
  const other = await createTestDatabase({ kind: "embedded" });
  const health = await createHealth({ prisma: other.prisma, migrationsDir: defaultMigrationsDir(), isDraining: () => false });
  await other.close();
  expect(await health.readiness()).toMatchObject({ ready: false, checks: { database: "unreachable" } });
});
