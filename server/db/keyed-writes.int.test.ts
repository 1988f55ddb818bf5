/**
 * The hot path's writes find the rows they change by primary key, on both databases,
 * without statistics (PGlite never analyzes; autovacuum may be off): a unit that
 * changes one step, one plan and a few runs reads none of the thousands of other steps
 * and runs. Joined only on JSON rows, which the planner takes for 100, each statement
 * read its whole table, and a hop grew slower with every plan a team had ever run.
 * Counted with the transaction's own table statistics (pg_stat_xact_user_tables).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { createTestDatabase, type TestDatabase } from "./testing/test-database.ts";
import { createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

/** enough history that reading a table whole is many pages, not one */
const HISTORY = 1500;
/** calls while the tables are small: a statement PostgreSQL plans generically after five is planned while small */
const WARM_UP = 8;

type Db = PrismaClient | Prisma.TransactionClient;

/** Steps `from`…`from + count - 1` of the plan, done, each with a run (the first `running` of them still running). */
async function addSteps(db: Db, ids: { conversationId: string; planId: string }, from: number, count: number, running = 0) {
  await db.planStep.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      planId: ids.planId,
      index: from + i,
      title: `step ${from + i}`,
      assignee: "writer",
      input: `part ${from + i} `.repeat(20),
      maxRetries: 2,
      status: "done" as const,
      outputSummary: `done ${from + i} `.repeat(20),
    })),
  });
  const steps = await db.planStep.findMany({ where: { planId: ids.planId, index: { gte: from } }, orderBy: { index: "asc" } });
  await db.run.createMany({
    data: steps.map((step, i) => ({
      conversationId: ids.conversationId,
      planId: ids.planId,
      stepId: step.id,
      kind: "step",
      input: `part ${from + i}`,
      status: i < running ? ("running" as const) : ("succeeded" as const),
    })),
  });
  const runs = await db.run.findMany({ where: { stepId: { in: steps.map((step) => step.id) } }, orderBy: { step: { index: "asc" } } });
  return { steps, runs };
}

/** a conversation with an empty plan */
async function newPlan(prisma: PrismaClient) {
  const conversation = await prisma.conversation.create({ data: { title: "history" } });
  const plan = await prisma.plan.create({ data: { conversationId: conversation.id, title: "p", maxParallel: 1, request: "r" } });
  return { conversationId: conversation.id, planId: plan.id };
}

type Scans = Record<string, number>;

/** rows read by sequential scans, per table, in this transaction so far */
async function scans(tx: Prisma.TransactionClient): Promise<Scans> {
  const rows = await tx.$queryRawUnsafe<{ relname: string; seq_tup_read: bigint }[]>(
    `SELECT relname, seq_tup_read FROM pg_stat_xact_user_tables WHERE relname IN ('PlanStep', 'Run')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, Number(row.seq_tup_read)]));
}

/** rows of `table` read by sequential scans between two counts */
const readBetween = (counted: { before: Scans; after: Scans }, table: string) => (counted.after[table] ?? 0) - (counted.before[table] ?? 0);

describe.each(["embedded", "postgres"] as const)("keyed writes on %s", (kind) => {
  it("a unit's write reads no step or run it does not change, though first planned when the tables were small", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const ids = await newPlan(db.prisma);
    const now = new Date().toISOString();
    /** a unit's document: a changed step, the plan's new version, a finished, a cancelled and a moved run */
    const doc = (input: { step: object; version: number; finished: string; cancelled: string; moved: string }) =>
      JSON.stringify({
        conversationId: ids.conversationId,
        now,
        events: [],
        steps: [input.step],
        plans: [{ id: ids.planId, version: input.version, updatedAt: now, setStatus: false, status: "running", endedAt: null }],
        finishedRuns: [{ id: input.finished, status: "succeeded", endedAt: now, error: null, tokensIn: 1, tokensOut: 2, cost: 0 }],
        cancelledRuns: [{ id: input.cancelled, endedAt: now }],
        runPlans: [{ id: input.moved, planId: ids.planId }],
        closedForms: [],
      });
    const write = (tx: Prisma.TransactionClient, text: string) => tx.$queryRawUnsafe(`SELECT baton_write_units($1::jsonb)`, text);
    const stepRow = async (tx: Prisma.TransactionClient, id: string) =>
      (await tx.$queryRawUnsafe<{ row: object }[]>(`SELECT to_jsonb(s) AS "row" FROM "PlanStep" s WHERE s."id" = $1`, id))[0].row;
    // one transaction: on PostgreSQL, one connection, whose cached plans are the ones that count
    const counted = await db.prisma.$transaction(
      async (tx) => {
        const small = await addSteps(tx, ids, 1, WARM_UP, WARM_UP);
        for (let i = 0; i < WARM_UP; i++) {
          const runId = small.runs[i].id;
          const step = { ...(await stepRow(tx, small.steps[i].id)), failureReason: `warm ${i}` };
          await write(tx, doc({ step, version: i + 1, finished: runId, cancelled: runId, moved: runId }));
        }
        const grown = await addSteps(tx, ids, WARM_UP + 1, HISTORY, 3);
        const [finished, cancelled, moved] = grown.runs;
        const last = grown.steps[grown.steps.length - 1];
        const step = { ...(await stepRow(tx, last.id)), failureReason: "changed" };
        const before = await scans(tx);
        await write(tx, doc({ step, version: WARM_UP + 1, finished: finished.id, cancelled: cancelled.id, moved: moved.id }));
        return { before, after: await scans(tx), last, finished, cancelled };
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
    // the write did happen (a statement that matched nothing would also read nothing)
    expect((await db.prisma.planStep.findUniqueOrThrow({ where: { id: counted.last.id } })).failureReason).toBe("changed");
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: counted.finished.id } })).status).toBe("succeeded");
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: counted.cancelled.id } })).status).toBe("cancelled");
    expect((await db.prisma.plan.findUniqueOrThrow({ where: { id: ids.planId } })).version).toBe(WARM_UP + 1);
    for (const table of ["PlanStep", "Run"]) {
      expect(readBetween(counted, table), `rows of ${table} read by sequential scans`).toBeLessThan(HISTORY / 10);
    }
  }, 120_000);

  it("saving a run's session reads no other run", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const runs = (await addSteps(db.prisma, await newPlan(db.prisma), 1, HISTORY)).runs.slice(0, 3);
    const counted = await db.prisma.$transaction(async (tx) => {
      const before = await scans(tx);
      // the store's own statement, in this transaction so its reads are counted here
      const store = createPrismaSessionStore(tx as unknown as PrismaClient, { delayMs: 0 });
      await Promise.all(runs.map((run, i) => store.save(run.id, [{ role: "user", content: `turn ${i}` }])));
      return { before, after: await scans(tx) };
    });
    const saved = await db.prisma.run.findMany({ where: { id: { in: runs.map((run) => run.id) } }, select: { session: true } });
    expect(saved.every((run) => run.session !== null)).toBe(true);
    expect(readBetween(counted, "Run"), "rows of Run read by sequential scans").toBeLessThan(HISTORY / 10);
  }, 120_000);
});
