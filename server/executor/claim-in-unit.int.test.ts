/**
 * With two agent-running processes the fair share is finite. The unit that ends a chain's
 * step N and creates step N+1 must claim N+1 in its own statement: the ending run frees its
 * slot once the unit commits, and its own early start is what it claims for. Counting both
 * as held made every next run wait for NOTIFY baton_runs and another claim (33–45 ms a hop
 * on PostgreSQL). A run announced "queued" was not claimed in the unit that created it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { createTestDatabase } from "../db/testing/test-database.ts";
import type { Liveness } from "../db/liveness.ts";

/** a held lock whose database counts two agent-running processes: the fair share is finite */
const twoWorkers: Liveness = {
  held: true,
  start: async () => undefined,
  onChange: () => undefined,
  deadOwners: async () => [],
  takingOver: async () => false,
  liveWorkers: async () => 2,
  close: async () => undefined,
};

let fixture: ExecutorFixture | undefined;
let database: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await fixture?.close();
  await database?.close();
  fixture = database = undefined;
});

const DATABASES = [
  { name: "embedded on its thread", kind: "embedded" as const, thread: true },
  { name: "PostgreSQL", kind: "postgres" as const },
];

describe.each(DATABASES)("on $name", (options) => {
  it("each run of a chain is claimed in the unit that creates it, never announced queued", async () => {
    const db = await createTestDatabase(options);
    database = db;
    fixture = await createExecutorFixture({ db, earlyStart: true, liveness: twoWorkers, script: directiveScript });
    const f = fixture;
    const before = f.executor.earlyStarts;
    const plan = await f.executor.submitPlan({
      conversationId: f.conversationId,
      raw: {
        title: "Chain",
        steps: [
          { index: 1, title: "a", assignee: "researcher", input: "first" },
          { index: 2, title: "b", assignee: "analyst", input: "second {{step_1.output_summary}}" },
          { index: 3, title: "c", assignee: "researcher", input: "third {{step_2.output_summary}}" },
          { index: 4, title: "d", assignee: "analyst", input: "fourth {{step_3.output_summary}}" },
        ],
      },
    });
    expect(await f.waitForPlan(plan.id)).toBe("completed");
    const runs = await f.db.prisma.run.findMany({ where: { planId: plan.id }, select: { id: true } });
    expect(runs).toHaveLength(4);
    const ids = new Set(runs.map((run) => run.id));
    const queued = f.published
      .filter((event) => event.type === "run-updated")
      .map((event) => (event.payload as { run: { id: string; status: string } }).run)
      .filter((run) => ids.has(run.id) && run.status === "queued")
      .map((run) => run.id);
    expect(queued, "runs announced queued: their creating unit did not claim them").toEqual([]);
    expect(f.executor.earlyStarts.abandoned, "early starts abandoned").toBe(before.abandoned);
  });
});
