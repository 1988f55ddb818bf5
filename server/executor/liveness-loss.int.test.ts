/**
 * A claim that commits after this process lost its liveness lock starts nothing: while
 * the lock is free, other processes may take this process's runs over (and run their
 * steps again), so a run it started then could run twice at once. Such runs are
 * declared lost instead, and their steps retry once the lock is back.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Liveness } from "../db/liveness.ts";
import type { SqlRunner } from "../db/sql-runner.ts";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { ok } from "./testing/scripted-runner.ts";

/** A liveness lock the test loses and takes back; no other process exists. */
function testLiveness() {
  const listeners: ((held: boolean) => void)[] = [];
  let held = true;
  const set = (value: boolean) => {
    held = value;
    for (const listener of listeners) listener(value);
  };
  const liveness: Liveness = {
    get held() {
      return held;
    },
    start: async () => undefined,
    onChange: (listener) => void listeners.push(listener),
    deadOwners: async () => [],
    takingOver: async () => false,
    liveWorkers: async () => 1,
    close: async () => undefined,
  };
  return { liveness, lose: () => set(false), regain: () => set(true) };
}

let fixture: ExecutorFixture | undefined;
let db: TestDatabase | undefined;
afterEach(async () => {
  await fixture?.close();
  await db?.close();
  fixture = db = undefined;
});

/**
 * Also with the run started early (it prepares while its unit's statement is written):
 * the loss aborts it before its first turn, and the commit that claimed it must not make
 * it live again. Seen against a real PostgreSQL whose backends were all terminated: such
 * a run stayed "live" in the process with nothing running it, its lease renewed for
 * good, its plan never ended, and the process never finished draining on SIGTERM.
 */
describe.each([{ earlyStart: false }, { earlyStart: true }])("started early: $earlyStart", ({ earlyStart }) => {
  it("starts no run its statement claimed after the liveness lock was lost, and retries its step once the lock is back", async () => {
    db = await createTestDatabase({ kind: "embedded" });
    const lock = testLiveness();
    // the lock is lost while the statement that claims the plan's first run is on its way
    let loseOnClaim = false;
    const realSql = db.sql;
    const sql: SqlRunner = (text, params) => {
      if (loseOnClaim && JSON.stringify(params).includes('\\"claim\\":{')) {
        loseOnClaim = false;
        lock.lose();
      }
      return realSql(text, params);
    };
    const startedWithoutLock: string[] = [];
    fixture = await createExecutorFixture({
      db: { ...db, sql },
      liveness: lock.liveness,
      earlyStart,
      script: (request) => {
        if (!lock.liveness.held) startedWithoutLock.push(request.runId);
        return ok(`done: ${request.input}`);
      },
    });
    loseOnClaim = true;
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "across a loss", steps: [{ index: 1, title: "a", assignee: "researcher", input: "a", wait_for: [] }] },
    });
    expect(loseOnClaim).toBe(false);
    // the run was claimed: it is handed back (lost), not started
    const first = async () => fixture!.db.prisma.run.findFirst({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    for (let polls = 0; (await first())?.status === "running" && polls < 500; polls++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await first())?.status).toBe("lost");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(startedWithoutLock).toEqual([]);
    expect(fixture.runner.calls).toHaveLength(0);

    lock.regain();
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((run) => run.status)).toEqual(["lost", "succeeded"]);
    expect(startedWithoutLock).toEqual([]);
  });
});
