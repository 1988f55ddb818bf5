/**
 * The optimistic unit of work: when the plan changes between its read and its write,
 * the write is refused whole and the unit runs again under the lock, so the outcome
 * is the same as if it had waited.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { bumpPlan, interference } from "./testing/interference.ts";

let fixture: ExecutorFixture;
const writer = interference();

beforeAll(async () => {
  fixture = await createExecutorFixture({ script: directiveScript, hooks: writer.hooks });
});

afterAll(async () => {
  await fixture?.close();
});

it("falls back to the locked transaction when another writer changed the plan meanwhile", async () => {
  // A try whose units all took the locked path (on a loaded machine something else may
  // need the lock) has no optimistic write to interfere with and proves nothing, so try
  // again (a few times at most) until one interfered.
  let plan: { id: string } | undefined;
  let before = { ...fixture.executor.stats };
  for (let attempt = 1; attempt <= 5 && !plan; attempt += 1) {
    const candidate = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: `Raced ${attempt}`,
        steps: [
          { index: 1, title: "a", assignee: "researcher", input: "sleep=30 first" },
          { index: 2, title: "b", assignee: "analyst", input: "second {{step_1.output_summary}}" },
        ],
      },
    });
    before = { ...fixture.executor.stats };
    // as if another process had written the plan between this unit's read and its write
    writer.set(bumpPlan(fixture.db.prisma));
    expect(await fixture.waitForPlan(candidate.id)).toBe("completed");
    if (!writer.pending) plan = candidate;
    writer.set(null);
  }
  expect(plan, "no try reached an optimistic write").toBeDefined();
  expect(fixture.executor.stats.conflicts).toBe(before.conflicts + 1);
  expect(fixture.executor.stats.locked).toBeGreaterThan(before.locked);
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan!.id }, orderBy: { index: "asc" } });
  expect(steps.map((s) => s.status)).toEqual(["done", "done"]);
  const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan!.id } });
  expect(runs).toHaveLength(2); // the refused attempt wrote nothing: no duplicate run or message
  expect(await fixture.db.prisma.message.count({ where: { planId: plan!.id, kind: "dispatch" } })).toBe(2);
  const seqs = (
    await fixture.db.prisma.conversationEvent.findMany({ where: { conversationId: fixture.conversationId }, orderBy: { seq: "asc" } })
  ).map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
});

it("submits a plan in one optimistic statement, even with the agent directory's cache cold", async () => {
  fixture.executor.agentsChanged(); // the cache refills outside the lock, which a read-only attempt may
  const before = { ...fixture.executor.stats };
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "One statement",
      steps: [
        { index: 1, title: "a", assignee: "researcher", input: "sleep=300 first" },
        { index: 2, title: "b", assignee: "analyst", input: "sleep=300 second", wait_for: [] },
      ],
    },
  });
  // counted before the steps' own units (they end 300 ms later)
  expect(fixture.executor.stats.optimistic).toBe(before.optimistic + 1);
  expect(fixture.executor.stats.locked).toBe(before.locked);
  expect(plan.steps.map((s) => s.status)).toEqual(["in_progress", "in_progress"]);
  const stored = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  expect(stored.map((s) => [s.status, s.liveRunId !== null])).toEqual([
    ["in_progress", true],
    ["in_progress", true],
  ]);
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
});

it("refuses a plan for a conversation that does not exist as not found, writing nothing", async () => {
  const plans = await fixture.db.prisma.plan.count();
  await expect(
    fixture.executor.submitPlan({
      conversationId: "no-such-conversation",
      // the commander is always a valid assignee: what refuses this plan is the missing conversation
      raw: { title: "Nowhere", steps: [{ index: 1, title: "a", assignee: "commander", input: "x" }] },
    }),
  ).rejects.toMatchObject({ code: "not_found" });
  expect(await fixture.db.prisma.plan.count()).toBe(plans);
});
