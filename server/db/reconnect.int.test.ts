/**
 * Connections come back (issue 42): a LISTEN connection and a liveness lock survive
 * `pg_terminate_backend` of every connection, as after a failover or a proxy's cut, and
 * nothing throws at the process meanwhile.
 */
import pg from "pg";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "./testing/test-database.ts";
import { listenResiliently, nextBackoff, RECONNECT_MAX_MS, RECONNECT_MIN_MS } from "./pg-listener.ts";
import { postgresLiveness } from "./liveness.ts";
import { endPool, guardPool, outageLog } from "./pg-guard.ts";

let db: TestDatabase;

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
  db = await createTestDatabase({ kind: "postgres" });
});

afterAll(async () => {
  await db?.close();
});

/** what a failover does to this database's sessions */
async function terminateEveryConnection(): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

it("backs off between the bounds, doubling", () => {
  fc.assert(
    fc.property(
      fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: null }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (previous, r) => {
        const next = nextBackoff(previous, () => r);
        expect(next).toBeGreaterThanOrEqual(Math.round(RECONNECT_MIN_MS * 0.75));
        expect(next).toBeLessThanOrEqual(RECONNECT_MAX_MS);
        if (previous !== null && previous * 2 * 1.25 <= RECONNECT_MAX_MS)
          expect(next).toBeGreaterThanOrEqual(Math.round(previous * 2 * 0.75));
      },
    ),
  );
});

it("a LISTEN connection re-subscribes after every connection was terminated, and hears NOTIFYs again", async () => {
  const heard: string[] = [];
  let subscriptions = 0;
  const listener = listenResiliently(db.pool!.options, ["baton_test_channel"], {
    notification: (_channel, payload) => heard.push(payload),
    onConnected: () => subscriptions++,
  });
  try {
    await vi.waitFor(() => expect(subscriptions).toBe(1), { timeout: 10_000 });
    await db.pool!.query("SELECT pg_notify('baton_test_channel', 'before')");
    await vi.waitFor(() => expect(heard).toEqual(["before"]), { timeout: 10_000 });
    expect(await terminateEveryConnection()).toBeGreaterThan(0);
    await vi.waitFor(() => expect(subscriptions).toBe(2), { timeout: 15_000 });
    // the application's own pool answers again too (its dropped idle clients were handled)
    await vi.waitFor(() => db.pool!.query("SELECT pg_notify('baton_test_channel', 'after')"), { timeout: 10_000 });
    await vi.waitFor(() => expect(heard).toEqual(["before", "after"]), { timeout: 10_000 });
  } finally {
    await listener.close();
  }
});

it("a liveness lock reads as dead once its process lets go, and is taken again after a cut", async () => {
  const changes: boolean[] = [];
  const liveness = postgresLiveness({ config: db.pool!.options, instanceId: "reconnect-a", pool: db.pool!, runsAgents: true });
  liveness.onChange((held) => changes.push(held));
  await liveness.start();
  try {
    await vi.waitFor(
      () => liveness.deadOwners(["reconnect-a", "reconnect-gone"]).then((dead) => expect(dead).toEqual(["reconnect-gone"])),
      {
        timeout: 10_000,
      },
    );
    expect(await liveness.liveWorkers()).toBe(1);
    await terminateEveryConnection();
    await vi.waitFor(() => expect(changes).toEqual([true, false, true]), { timeout: 15_000 });
    await vi.waitFor(() => liveness.deadOwners(["reconnect-a"]).then((dead) => expect(dead).toEqual([])), { timeout: 10_000 });
  } finally {
    await liveness.close();
  }
  await vi.waitFor(() => liveness.deadOwners(["reconnect-a"]).then((dead) => expect(dead).toEqual(["reconnect-a"])), { timeout: 10_000 });
});

it("a pool whose connections are all cut logs one warning and one line when it connects again, not one a connection", async () => {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  const logger = { warn: at("warn"), info: at("info"), debug: at("debug") } as unknown as Parameters<typeof outageLog>[0];
  const pool = guardPool(new pg.Pool({ ...db.pool!.options, max: 4 }), { name: "cut", outage: outageLog(logger) });
  try {
    // four connections: three idle, one checked out and not querying
    const clients = await Promise.all([1, 2, 3, 4].map(() => pool.connect()));
    clients.slice(1).forEach((client) => client.release());
    expect(await terminateEveryConnection()).toBeGreaterThanOrEqual(4);
    await vi.waitFor(() => expect(lines.filter((line) => line.level !== "info")).toHaveLength(4), { timeout: 10_000 });
    clients[0].release(true);
    await pool.query("SELECT 1");
    const shown = lines.filter((line) => line.level !== "debug");
    expect(shown.map((line) => line.level)).toEqual(["warn", "info"]);
    expect(shown[0].msg).toMatch(/the database went away/);
    expect(shown[1].msg).toMatch(/^the database is back/);
    expect(shown[1].fields).toMatchObject({ pool: "cut", droppedConnections: 4 });
  } finally {
    await pool.end();
  }
});

it("a pool holding a client nobody will release still ends for a shutdown, saying so", async () => {
  // what Socket.IO's adapter left behind on a web node after a day of cuts: SIGTERM waited forever
  const pool = new pg.Pool({ ...db.pool!.options, max: 3 });
  const held = await pool.connect();
  const warnings: unknown[] = [];
  const ended = await endPool(pool, {
    name: "socket_io",
    timeoutMs: 300,
    logger: { warn: (fields: unknown) => void warnings.push(fields) },
  });
  expect(ended).toBe(false);
  expect(warnings).toEqual([{ pool: "socket_io", checkedOut: 1 }]);
  held.release(true);
});
