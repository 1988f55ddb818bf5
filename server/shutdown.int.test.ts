/**
 * Graceful shutdown on PostgreSQL with two real processes: SIGTERM one mid-plan. A run
 * that finishes within the grace period finishes there; the others are handed back at
 * once (not after their lease expires) and run again, once, on the other process; the
 * plan completes and the stopped process exits 0.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { createScratchPostgresDatabase } from "./db/testing/test-database.ts";
import type { PlanDTO } from "./protocol/dto.ts";
import { ServerProcess } from "./testing/server-handle.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function rows<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type RunRow = {
  id: string;
  step: number;
  status: string;
  lease_owner: string | null;
  error: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  attempt: number;
};

it("SIGTERM mid-plan: short runs finish, the rest are handed back at once and run once more elsewhere", async () => {
  const db = await createScratchPostgresDatabase();
  cleanups.push(() => db.drop());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "baton-shutdown-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const env = {
    DATABASE_URL: db.url,
    BATON_DATA_DIR: dataDir,
    BETTER_AUTH_SECRET: "shutdown-test-secret-0123456789abcdef",
    BATON_SEED_DEMO: "0",
    BATON_SHUTDOWN_GRACE_MS: "2000",
  };

  // the first process takes every run; the second starts after, so the stopped one holds them
  const first = ServerProcess.spawn({ ...env, BATON_INSTANCE_ID: "first" });
  cleanups.push(() => first.kill());
  await first.ready;
  const conversation = await first.request<{ id: string }>({
    type: "conversation",
    title: "shutdown",
    agents: ["researcher", "analyst", "writer"],
  });
  const plan = await first.request<PlanDTO>({
    type: "submit",
    conversationId: conversation.id,
    raw: {
      title: "drain",
      steps: [
        { index: 1, title: "short", assignee: "researcher", input: "sleep=400 short", wait_for: [] },
        // held on the first process: however slowly the second one starts, these are
        // still running when the first is stopped; run again on the second, they end at once
        { index: 2, title: "long a", assignee: "analyst", input: "sleep=300 hold_on=first long", wait_for: [] },
        { index: 3, title: "long b", assignee: "writer", input: "sleep=300 hold_on=first long", wait_for: [] },
        { index: 4, title: "join", assignee: "commander", input: "join", wait_for: [1, 2, 3] },
      ],
    },
  });
  const runsOf = () =>
    rows<RunRow>(
      db.url,
      `SELECT r.id, s.index AS step, r.status, r."leaseOwner" AS lease_owner, r.error, r."startedAt" AS started_at, r."endedAt" AS ended_at, r.attempt
         FROM "Run" r JOIN "PlanStep" s ON s.id = r."stepId" WHERE r."planId" = $1 ORDER BY r."createdAt"`,
      [plan.id],
    );
  await until(
    async () => ((await runsOf()).filter((run) => run.status === "running" && run.lease_owner === "first").length === 3 ? true : undefined),
    "three runs live on the first process",
  );
  const second = ServerProcess.spawn({ ...env, BATON_INSTANCE_ID: "second" });
  cleanups.push(() => second.kill());
  await second.ready;

  const exited = new Promise<number | null>((resolve) => first.child.once("exit", (code) => resolve(code)));
  first.child.kill("SIGTERM");
  expect(await exited).toBe(0);

  const status = await until(async () => {
    const [row] = await rows<{ status: string }>(db.url, `SELECT status FROM "Plan" WHERE id = $1`, [plan.id]);
    return row && ["completed", "failed", "partial", "cancelled"].includes(row.status) ? row.status : undefined;
  }, "the plan to end");
  expect(status).toBe("completed");

  const runs = await runsOf();
  const byStep = (step: number) => runs.filter((run) => run.step === step);
  // the short run finished within the grace period, on the process that was stopping
  expect(byStep(1).map((run) => run.status)).toEqual(["succeeded"]);
  for (const step of [2, 3]) {
    const [handedBack, again, ...more] = byStep(step);
    expect(more).toEqual([]);
    expect(handedBack).toMatchObject({ status: "lost", error: "handed back: its process shut down" });
    expect(again).toMatchObject({ status: "succeeded" });
    // never two at once, and taken over at once rather than after the 30 s lease
    expect(again.started_at!.getTime()).toBeGreaterThanOrEqual(handedBack.ended_at!.getTime());
    expect(again.started_at!.getTime() - handedBack.ended_at!.getTime()).toBeLessThan(10_000);
  }
  await second.request({ type: "stop" });
}, 180_000);
