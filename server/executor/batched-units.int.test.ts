/**
 * Results that queue behind a busy conversation share one statement (units.ts,
 * runBatch): the outcome is what the units would have done one after another — each
 * step recorded once, every run once, seq gap-free — and a batch that cannot be
 * written whole (the write refused, a unit needing the transaction) is carried out
 * unit by unit instead, writing nothing twice.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import type { Script } from "./testing/scripted-runner.ts";

/** A gate runs wait at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
let first = gate();
let rest = gate();
/** Runs whose input says `first` or `rest` wait for that gate; then they follow their directives. */
const script: Script = async (request, call) => {
  if (request.input.includes("first")) await first.opened;
  if (request.input.includes("rest")) await rest.opened;
  return directiveScript(request, call);
};

/**
 * The first optimistic write after `arm()` is slow (it says when it started), so the
 * results that arrive meanwhile queue behind it, together; with `refuse`, the write after
 * it (the batch's) meets another writer's change to its plan.
 */
let armed = { slow: false, refuse: false };
let slowWrite = gate();
function arm(refuse: boolean) {
  slowWrite = gate();
  armed = { slow: true, refuse };
}
let fixture: ExecutorFixture;

beforeAll(async () => {
  fixture = await createExecutorFixture({
    script,
    hooks: {
      beforeOptimisticWrite: async ({ planId }) => {
        if (armed.slow) {
          armed.slow = false;
          slowWrite.open();
          await new Promise((resolve) => setTimeout(resolve, 150));
          return;
        }
        if (armed.refuse) {
          armed.refuse = false;
          await fixture.db.prisma.plan.update({ where: { id: planId }, data: { version: { increment: 1 } } });
        }
      },
    },
  });
});

afterAll(async () => {
  await fixture?.close();
});

/**
 * Four steps at once and a fifth that reads them all; `finish` ends the first step's run,
 * and once its write has begun (and is slow), the other three's runs together.
 */
async function fourAtOnce(title: string, fourth = "rest four") {
  first = gate();
  rest = gate();
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title,
      steps: [
        { index: 1, title: "one", assignee: "researcher", input: "first one" },
        { index: 2, title: "two", assignee: "analyst", input: "rest two", wait_for: [] },
        { index: 3, title: "three", assignee: "writer", input: "rest three", wait_for: [] },
        { index: 4, title: "four", assignee: "researcher", input: fourth, wait_for: [] },
        {
          index: 5,
          title: "all",
          assignee: "writer",
          input: "{{step_1.output_summary}} {{step_2.output_summary}} {{step_3.output_summary}} {{step_4.output_summary}}",
          wait_for: [1, 2, 3, 4],
        },
      ],
    },
  });
  const running = () => fixture.db.prisma.run.count({ where: { planId: plan.id, status: "running" } });
  for (let i = 0; i < 200 && (await running()) < 4; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await running()).toBe(4);
  return {
    plan,
    finish: async (refuse = false) => {
      arm(refuse);
      first.open();
      await slowWrite.opened;
      rest.open();
    },
  };
}

async function expectEachStepOnce(planId: string, statuses: string[]) {
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId }, orderBy: { index: "asc" } });
  expect(steps.map((step) => step.status)).toEqual(statuses);
  const runs = await fixture.db.prisma.run.findMany({ where: { planId } });
  const started = steps.filter((step) => step.status !== "pending").length;
  // nothing the refused or abandoned batch decided was written: one run and one dispatch per step
  expect(runs).toHaveLength(started);
  expect(new Set(runs.map((run) => run.stepId)).size).toBe(started);
  expect(await fixture.db.prisma.message.count({ where: { planId, kind: "dispatch" } })).toBe(started);
  const seqs = (
    await fixture.db.prisma.conversationEvent.findMany({ where: { conversationId: fixture.conversationId }, orderBy: { seq: "asc" } })
  ).map((event) => event.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  return { steps, runs };
}

it("writes results that queued behind a busy turn in one statement, as if one after another", async () => {
  const { plan, finish } = await fourAtOnce("Together");
  const before = { ...fixture.executor.stats };
  await finish();
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const stats = fixture.executor.stats;
  expect(stats.batches).toBe(before.batches + 1);
  expect(stats.batched).toBe(before.batched + 3);
  expect(stats.locked).toBe(before.locked);
  const { steps } = await expectEachStepOnce(plan.id, ["done", "done", "done", "done", "done"]);
  // the last step was dispatched after all four, by whichever unit saw the fourth: with every summary
  expect(steps[4].renderedInput).toBe("summary of 1 summary of 2 summary of 3 summary of 4");
  // each run was announced running before it was announced finished
  const events = fixture.published.filter((event) => event.type === "run-updated" && event.payload.run.planId === plan.id);
  for (const run of new Set(events.map((event) => (event.type === "run-updated" ? event.payload.run.id : "")))) {
    const statuses = events.flatMap((event) =>
      event.type === "run-updated" && event.payload.run.id === run ? [event.payload.run.status] : [],
    );
    expect(statuses.at(-1)).toBe("succeeded");
    expect(statuses.indexOf("succeeded")).toBe(statuses.length - 1);
  }
});

it("carries a batch out unit by unit when its write is refused, writing nothing twice", async () => {
  const { plan, finish } = await fourAtOnce("Refused");
  const before = { ...fixture.executor.stats };
  await finish(true);
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");
  const stats = fixture.executor.stats;
  // the batch's write, then its first unit's on its own (decided from the same stale cache, then locked)
  expect(stats.conflicts).toBe(before.conflicts + 2);
  expect(stats.locked).toBe(before.locked + 1);
  expect(stats.batches).toBe(before.batches);
  await expectEachStepOnce(plan.id, ["done", "done", "done", "done", "done"]);
});

it("carries a batch out unit by unit when one of its units needs the transaction", async () => {
  // the fourth run asks a person (it opens a form, which needs the transaction)
  const { plan, finish } = await fourAtOnce("Blocked", "rest four block=1");
  const before = { ...fixture.executor.stats };
  await finish();
  expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
  await fixture.executor.idle();
  const stats = fixture.executor.stats;
  expect(stats.batches).toBe(before.batches);
  // the batch, then the blocked run's unit on its own
  expect(stats.neededTransaction).toBe(before.neededTransaction + 2);
  await expectEachStepOnce(plan.id, ["done", "done", "done", "blocked", "pending"]);
  expect(await fixture.db.prisma.form.count({ where: { planId: plan.id, status: "open" } })).toBe(1);
  await fixture.app.plans.cancelPlan({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, reason: "done testing" });
});
