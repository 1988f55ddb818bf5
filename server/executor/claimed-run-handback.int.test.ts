/**
 * A run claimed by a worker that cannot read it (its connection dropped as it asked) is
 * handed back at once, not left `running` until its lease runs out. Seen on PostgreSQL
 * with every backend terminated while plans ran: each worker logged a dozen
 * "[executor]" errors from reading a claimed run, and those runs sat claimed, started
 * by nobody, until something else declared them lost.
 */
import { afterEach, expect, it } from "vitest";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";

let fixture: ExecutorFixture | undefined;
let db: TestDatabase | undefined;
afterEach(async () => {
  await fixture?.close();
  await db?.close();
  fixture = db = undefined;
});

/** far less than the 30 s lease the run would otherwise wait out: a liveness bound, not a speed assertion */
const BOUND_MS = 10_000;

it("a claimed run whose read fails is handed back and its step runs, long before its lease would run out", async () => {
  db = await createTestDatabase({ kind: "embedded" });
  // the worker's read of a claimed run (its agent included) fails once, as when its connection drops
  let failures = 0;
  const prisma = db.prisma.$extends({
    query: {
      run: {
        async findUnique({ args, query }) {
          if (failures === 0 && args.include?.agent) {
            failures += 1;
            throw Object.assign(new Error("terminating connection due to administrator command"), { severity: "FATAL", code: "57P01" });
          }
          return query(args);
        },
      },
    },
  }) as unknown as PrismaClient;
  // the fixture's executor serves people and claims nothing; a worker beside it claims the runs
  fixture = await createExecutorFixture({ db: { ...db, prisma }, config: { role: "web", singleProcess: false } });
  await fixture.addExecutor({ role: "worker", singleProcess: false });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "handed back", steps: [{ index: 1, title: "a", assignee: "researcher", input: "a", wait_for: [] }] },
  });
  expect(await fixture.waitForPlan(plan.id, ["completed", "failed"], BOUND_MS)).toBe("completed");
  expect(failures).toBe(1);
  const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
  expect(runs.map((run) => run.status)).toEqual(["lost", "succeeded"]);
});
