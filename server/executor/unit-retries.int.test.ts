/**
 * A run's answer is not thrown away because the database could not take it at once
 * (issue 42). A unit PostgreSQL rolls back to break a deadlock (40P01) runs again; a
 * result whose unit failed for a reason that may pass (a connection that went) is stored
 * again, the run live meanwhile. Before,
 * the error reached the run that was recording its result: the result was dropped, the
 * run stayed `running` with no process renewing it, and 30 s later it was recorded lost
 * and its step run a second time (server/soak-processes.int.test.ts met it once in CI).
 *
 * The deadlock is a real one: when the run of step 1 has answered, a second connection
 * locks that run's row; the unit recording the answer takes the conversation's lock and
 * waits for the row; the second connection then waits for the conversation's lock. The
 * second connection's deadlock_timeout is long, so PostgreSQL picks the unit as victim.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversationLockKey } from "../adapters/prisma/plan-repository.ts";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { rawStep as step } from "./testing/file-fixture.ts";
import { ok } from "./testing/scripted-runner.ts";

let db: TestDatabase;
let fixture: ExecutorFixture;
let armed = false;
/** how many more times the unit recording a "dropped" answer fails as if its connection went */
let drops = 0;
/** what pg reports when PostgreSQL ends a session (a restart, a failover, pg_terminate_backend) */
const connectionEnded = () =>
  Object.assign(new Error("terminating connection due to administrator command"), { severity: "FATAL", code: "57P01" });
let rival: Promise<{ victim: boolean }> | null = null;

/**
 * The second connection: locks the run's row (`rowLocked`), then, once the unit's
 * statement waits for that row, asks for the conversation's lock. `outcome`: whether it
 * was the deadlock's victim.
 */
function lockAgainst(url: string, conversationId: string, planId: string) {
  const client = new pg.Client({ connectionString: url });
  const rowLocked = (async () => {
    await client.connect();
    await client.query("BEGIN");
    await client.query("SET LOCAL deadlock_timeout = '20s'");
    const locked = await client.query(`SELECT "id" FROM "Run" WHERE "planId" = $1 AND "status" = 'running' FOR UPDATE`, [planId]);
    if (locked.rowCount !== 1) throw new Error(`expected one running run, found ${locked.rowCount}`);
  })();
  const outcome = (async () => {
    await rowLocked;
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [conversationLockKey(conversationId)]);
      await client.query("COMMIT");
      return { victim: false };
    } catch {
      return { victim: true };
    } finally {
      await client.end();
    }
  })();
  return { rowLocked, outcome };
}

beforeAll(async () => {
  db = await createTestDatabase({ kind: "postgres" });
  fixture = await createExecutorFixture({
    db,
    script: (request) => {
      if (request.input.includes("first")) armed = true;
      if (request.input.includes("dropped")) drops = 2;
      return ok(`done: ${request.input.slice(0, 20)}`);
    },
    hooks: {
      // the unit that records step 1's answer is the first optimistic write after it ran
      beforeOptimisticWrite: async ({ conversationId, planId }) => {
        if (drops > 0) {
          drops--;
          throw connectionEnded();
        }
        if (!armed || rival) return;
        const { rowLocked, outcome } = lockAgainst(db.url!, conversationId, planId);
        rival = outcome;
        // the unit's statement goes out only once the second connection holds the row
        await rowLocked;
      },
    },
  });
});

afterAll(async () => {
  await fixture?.close();
  await db?.close();
});

describe("a run's answer when the database cannot take it at once", () => {
  it("runs again: the run's answer is recorded once, nothing is lost, no step runs twice", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Chain", steps: [step(1, "researcher", "first"), step(2, "analyst", "second {{step_1.output_summary}}")] },
    });
    expect(await fixture.waitForPlan(plan.id, undefined, 30_000)).toBe("completed");
    expect(rival, "the second connection never ran").not.toBeNull();
    expect(await rival, "PostgreSQL chose the unit as the deadlock's victim").toEqual({ victim: false });
    expect(fixture.executor.stats.rolledBack, "units run again after a rollback").toBeGreaterThanOrEqual(1);
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, select: { status: true } });
    expect(runs.map((run) => run.status)).toEqual(["succeeded", "succeeded"]);
    expect(fixture.runner.calls).toHaveLength(2);
  }, 40_000);

  it("a result whose write failed as a connection went is stored on a later try, not lost and run again", async () => {
    const calls = fixture.runner.calls.length;
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Dropped", steps: [step(1, "researcher", "dropped answer")] },
    });
    expect(await fixture.waitForPlan(plan.id, undefined, 20_000)).toBe("completed");
    expect(drops, "the write failed twice first").toBe(0);
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, select: { status: true } });
    expect(runs.map((run) => run.status)).toEqual(["succeeded"]);
    expect(fixture.runner.calls.length - calls, "model calls: the step ran again").toBe(1);
  }, 30_000);
});
