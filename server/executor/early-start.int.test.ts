/**
 * Early start (ARCHITECTURE.md, "Early start"): a run a unit creates starts preparing
 * while the unit's statement is written, and acts only once the unit committed and
 * claimed it for this process. A run whose unit was refused, or whose claim went to
 * another run, never reaches the agent runtime's point of acting: the runtime is called
 * (past its confirmation) exactly once per run the database holds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { bumpPlan, interference } from "./testing/interference.ts";
import { createTestDatabase } from "../db/testing/test-database.ts";
import type { SqlRunner } from "../db/sql-runner.ts";

let fixture: ExecutorFixture | undefined;
/** the fixture does not close a database it was given */
let database: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await fixture?.close();
  await database?.close();
  fixture = undefined;
  database = undefined;
});

/** every run the runtime acted on is a stored run, and none twice */
async function expectActedOnStoredRunsOnce(f: ExecutorFixture, planIds: string[]) {
  const acted = f.runner.calls.filter((call) => call.step && planIds.includes(call.step.planId)).map((call) => call.runId);
  const stored = await f.db.prisma.run.findMany({ where: { planId: { in: planIds } }, select: { id: true } });
  expect(new Set(acted).size).toBe(acted.length);
  expect([...acted].sort()).toEqual(stored.map((run) => run.id).sort());
  expect(f.runner.maxLivePerStep).toBeLessThanOrEqual(1);
}

/**
 * The databases the tests run on. The tests' embedded database runs on their own thread,
 * where the server would not start runs early (Database.sqlElsewhere is false): its
 * statements are held back 20 ms here, as PGlite on its worker thread is elsewhere, so
 * the runs really start while their unit is unwritten. PostgreSQL answers over a socket.
 */
const DATABASES = [
  {
    name: "embedded, slow statements",
    open: async () => {
      const db = await createTestDatabase({ kind: "embedded" });
      const slow: SqlRunner = async (text, params) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return db.sql(text, params);
      };
      database = db;
      return { ...db, sql: slow };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const db = await createTestDatabase({ kind: "postgres" });
      database = db;
      return db;
    },
  },
];

describe.each(DATABASES)("on $name", ({ open }) => {
  it("a run started for a write the database refused never acts; the locked retry's run does, once", async () => {
    const writer = interference();
    fixture = await createExecutorFixture({ db: await open(), earlyStart: true, script: directiveScript, hooks: writer.hooks });
    const f = fixture;
    const plan = await f.executor.submitPlan({
      conversationId: f.conversationId,
      raw: {
        title: "Refused",
        steps: [
          { index: 1, title: "a", assignee: "researcher", input: "sleep=40 first" },
          { index: 2, title: "b", assignee: "analyst", input: "second {{step_1.output_summary}}" },
        ],
      },
    });
    const before = { units: { ...f.executor.stats }, early: f.executor.earlyStarts };
    // step 1's end dispatches step 2: as if another process wrote the plan just before that unit's statement
    writer.set(bumpPlan(f.db.prisma));
    expect(await f.waitForPlan(plan.id)).toBe("completed");
    expect(writer.pending, "the unit that dispatches step 2 did not run optimistically").toBe(false);
    expect(f.executor.stats.conflicts).toBe(before.units.conflicts + 1);
    // the refused attempt's run of step 2 was started early and abandoned; the retry's was confirmed
    const early = f.executor.earlyStarts;
    expect(early.abandoned).toBeGreaterThanOrEqual(before.early.abandoned + 1);
    expect(early.confirmed).toBeGreaterThanOrEqual(before.early.confirmed + 1);
    expect(f.runner.startsByStep.get(`${plan.id}:2`)).toBe(1);
    await expectActedOnStoredRunsOnce(f, [plan.id]);
  });

  it("a run started early whose claim went to an older waiter waits in the queue, then runs once", async () => {
    fixture = await createExecutorFixture({ db: await open(), earlyStart: true, script: directiveScript });
    const f = fixture;
    await f.db.prisma.agent.updateMany({ where: { handle: "researcher" }, data: { concurrency: 1 } });
    f.executor.agentsChanged();
    const submit = (title: string, input: string) =>
      f.executor.submitPlan({
        conversationId: f.conversationId,
        raw: { title, steps: [{ index: 1, title, assignee: "researcher", input }] },
      });
    const holder = await submit("holder", "sleep=150 holds the pool");
    const before = f.executor.earlyStarts;
    const waiter = await submit("waiter", "sleep=10 waits for the pool");
    // its unit started the run early, but the pool was full: the run waits, unstarted
    expect(f.executor.earlyStarts.abandoned).toBe(before.abandoned + 1);
    expect((await f.db.prisma.run.findFirstOrThrow({ where: { planId: waiter.id } })).status).toBe("queued");
    expect(await f.waitForPlan(holder.id)).toBe("completed");
    expect(await f.waitForPlan(waiter.id)).toBe("completed");
    const [held, waited] = await Promise.all(
      [holder.id, waiter.id].map((planId) => f.db.prisma.run.findFirstOrThrow({ where: { planId } })),
    );
    // one at a time in the pool: the waiter started when the holder's slot was freed
    expect(waited.startedAt!.getTime()).toBeGreaterThanOrEqual(held.endedAt!.getTime());
    await expectActedOnStoredRunsOnce(f, [holder.id, waiter.id]);
  });
});
