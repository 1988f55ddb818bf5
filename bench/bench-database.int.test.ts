/**
 * The benchmark uses the PostgreSQL it is given and cleans up only what it created: a
 * scratch database on that server, dropped on close; the given database is untouched and
 * another test database (however old) survives.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createScratchPostgresDatabase, postgresAvailable, TEST_ADMIN_URL } from "../server/db/testing/test-database.ts";
import { openPostgresBenchDatabase, withDatabase } from "./bench-database.ts";

let given: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
const decoy = `baton_test_${(Date.now() - 3 * 60 * 60 * 1000).toString(36)}_decoy${process.pid}`;

async function databases(): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_ADMIN_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database ORDER BY datname");
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
  // "the database it is given": a database of its own, standing in for a user's
  given = await createScratchPostgresDatabase();
  // another run's test database, three hours old by its name
  await admin(`CREATE DATABASE "${decoy}"`);
});

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS "${decoy}" WITH (FORCE)`).catch(() => {});
  await given?.drop();
});

it("benchmarks on a scratch database on the given server and drops only that", async () => {
  // other runs share this server: look only at the databases this test knows
  const db = await openPostgresBenchDatabase(given.url);
  let name: string;
  try {
    name = db.name;
    expect(name).toMatch(/^baton_bench_/);
    expect(await databases()).toEqual(expect.arrayContaining([name, decoy, given.name]));
    // migrated and usable
    await db.prisma.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.com" } });
    expect(await db.prisma.user.count()).toBe(1);
  } finally {
    await db.close();
  }
  // gone again, and nothing else dropped
  const after = await databases();
  expect(after).not.toContain(name!);
  expect(after).toEqual(expect.arrayContaining([decoy, given.name]));
  // the given database was only connected to: still empty of tables
  const client = new pg.Client({ connectionString: withDatabase(given.url, given.name) });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(rows).toEqual([]);
  } finally {
    await client.end();
  }
});
