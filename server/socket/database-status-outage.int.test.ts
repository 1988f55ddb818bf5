/**
 * The live indicator's database half through a real web node: while its own test
 * database refuses connections (ALLOW_CONNECTIONS false, every connection terminated) the
 * node's browsers are told `database-status` false, and true once connections are allowed
 * again. Only this test's database is touched.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../db/testing/test-database.ts";
import { seedWorkspace } from "../services/seed.ts";
import { ServerProcess } from "../testing/server-handle.ts";
import { signUpCookie, Viewer } from "../testing/live-viewers.ts";

const SECRET = "outage-status-test-secret-0123456789ab";
process.env.BETTER_AUTH_SECRET = SECRET;

let db: TestDatabase;
let tmp: string;
let admin: pg.Client | undefined;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
  tmp = await mkdtemp(path.join(os.tmpdir(), "baton-outage-status-"));
  db = await createTestDatabase({ kind: "postgres" });
  await seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: false });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await admin?.end();
  await db?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("a web node tells its browsers when it loses its database and when it has it again", { timeout: 120_000 }, async () => {
  const web = ServerProcess.spawn({
    DATABASE_URL: db.url!,
    BATON_DATA_DIR: tmp,
    BATON_SEED_DEMO: "0",
    BETTER_AUTH_SECRET: SECRET,
    BATON_INSTANCE_ID: "outage-status-web",
    BATON_ROLE: "web",
  });
  cleanups.push(() => web.kill());
  const { port } = await web.ready;
  const { cookie } = await signUpCookie(db.prisma, "outage-status@example.com");
  const viewer = new Viewer(`http://127.0.0.1:${port}`, cookie);
  cleanups.push(() => viewer.close());
  const statuses: boolean[] = [];
  viewer.socket.on("database-status", (status: { reachable: boolean }) => statuses.push(status.reachable));
  await viewer.connected();

  // the test's own database, from a connection to another one (it cannot cut itself off)
  const name = new URL(db.url!).pathname.slice(1);
  const adminUrl = new URL(db.url!);
  adminUrl.pathname = "/postgres";
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  cleanups.push(() => admin?.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`));
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
  await waitFor(() => statuses.length === 1, "the outage to be told");
  expect(statuses).toEqual([false]);

  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
  await waitFor(() => statuses.length === 2, "the end of the outage to be told");
  expect(statuses).toEqual([false, true]);
});
