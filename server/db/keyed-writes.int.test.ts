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
import { createTestDatabase, type TestDatabase } from "./test-database.ts";
import { createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

/** enough history that reading a table whole is many pages, not one */
const HISTORY = 1500;

async function withHistory(prisma: PrismaClient) {
  const conversation = await prisma.conversation.create({ data: { title: "history" } });
  const plan = await prisma.plan.create({ data: { conversationId: conversation.id, title: "p", maxParallel: 1, request: "r" } });
  await prisma.planStep.createMany({
    data: Array.from({ length: HISTORY }, (_, i) => ({
      planId: plan.id,
      index: i + 1,
      title: `step ${i + 1}`,
      assignee: "writer",
      input: `part ${i + 1} `.repeat(20),
      maxRetries: 2,
      status: "done" as const,
      outputSummary: `done ${i + 1} `.repeat(20),
    })),
  });
  const steps = await prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" }, select: { id: true } });
  await prisma.run.createMany({
    data: steps.map((step, i) => ({
      conversationId: conversation.id,
      planId: plan.id,
      stepId: step.id,
      kind: "step",
      input: `part ${i + 1}`,
      status: i < 3 ? ("running" as const) : ("succeeded" as const),
    })),
  });
  const runs = await prisma.run.findMany({ where: { status: "running" }, select: { id: true } });
  return { conversation, plan, step: steps[HISTORY - 1], runs };
}

/** sequential scans and the rows they read, per table, in this transaction so far */
async function scans(tx: Prisma.TransactionClient): Promise<Record<string, { seqScan: number; seqRead: number }>> {
  const rows = await tx.$queryRawUnsafe<{ relname: string; seq_scan: bigint; seq_tup_read: bigint }[]>(
    `SELECT relname, seq_scan, seq_tup_read FROM pg_stat_xact_user_tables WHERE relname IN ('PlanStep', 'Run')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, { seqScan: Number(row.seq_scan), seqRead: Number(row.seq_tup_read) }]));
}

describe.each(["embedded", "postgres"] as const)("keyed writes on %s", (kind) => {
  it("a unit's write reads no step or run it does not change", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const { conversation, plan, step, runs } = await withHistory(db.prisma);
    const [finished, cancelled, moved] = runs;
    const now = new Date().toISOString();
    const counted = await db.prisma.$transaction(async (tx) => {
      const [stepRow] = await tx.$queryRawUnsafe<{ row: Record<string, unknown> }[]>(
        `SELECT to_jsonb(s) AS "row" FROM "PlanStep" s WHERE s."id" = $1`,
        step.id,
      );
      const before = await scans(tx);
      const doc = {
        conversationId: conversation.id,
        now,
        events: [],
        steps: [{ ...stepRow.row, status: "failed", failureReason: "changed" }],
        plans: [{ id: plan.id, version: 1, updatedAt: now, setStatus: false, status: "running", endedAt: null }],
        finishedRuns: [{ id: finished.id, status: "succeeded", endedAt: now, error: null, tokensIn: 1, tokensOut: 2, cost: 0 }],
        cancelledRuns: [{ id: cancelled.id, endedAt: now }],
        runPlans: [{ id: moved.id, planId: plan.id }],
        closedForms: [],
      };
      await tx.$queryRawUnsafe(`SELECT baton_write_units($1::jsonb)`, JSON.stringify(doc));
      return { before, after: await scans(tx) };
    });
    // the write did happen (a statement that matched nothing would also read nothing)
    expect((await db.prisma.planStep.findUniqueOrThrow({ where: { id: step.id } })).failureReason).toBe("changed");
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: finished.id } })).status).toBe("succeeded");
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: cancelled.id } })).status).toBe("cancelled");
    expect((await db.prisma.plan.findUniqueOrThrow({ where: { id: plan.id } })).version).toBe(1);
    for (const table of ["PlanStep", "Run"]) {
      const read = (counted.after[table]?.seqRead ?? 0) - (counted.before[table]?.seqRead ?? 0);
      expect(read, `rows of ${table} read by sequential scans`).toBeLessThan(HISTORY / 10);
    }
  }, 120_000);

  it("saving a run's session reads no other run", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const { runs } = await withHistory(db.prisma);
    const counted = await db.prisma.$transaction(async (tx) => {
      const before = await scans(tx);
      // the store's own statement, in this transaction so its reads are counted here
      const store = createPrismaSessionStore(tx as unknown as PrismaClient, { delayMs: 0 });
      await Promise.all(runs.map((run, i) => store.save(run.id, [{ role: "user", content: `turn ${i}` }])));
      return { before, after: await scans(tx) };
    });
    const saved = await db.prisma.run.findMany({ where: { id: { in: runs.map((run) => run.id) } }, select: { session: true } });
    expect(saved.every((run) => run.session !== null)).toBe(true);
    const read = (counted.after.Run?.seqRead ?? 0) - (counted.before.Run?.seqRead ?? 0);
    expect(read, "rows of Run read by sequential scans").toBeLessThan(HISTORY / 10);
  }, 120_000);
});
