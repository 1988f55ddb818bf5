/**
 * Rule 4 across processes: two executor processes on one PostgreSQL, each receiving
 * half of the plans of the same conversations, complete thousands of steps with
 * heavy lock contention. Every step must be dispatched exactly once.
 */
import { expect, it } from "vitest";
import { postgresWithProcesses } from "./testing/postgres-processes.ts";
import type { PlanDTO } from "./protocol/dto.ts";
import { ExecutorProcess } from "./executor/testing/process-handle.ts";

const CONVERSATIONS = 4;
const PLANS_PER_CONVERSATION = 12;
const STEPS_PER_PLAN = 45; // 4 × 12 × 45 = 2,160 steps

const setup = postgresWithProcesses();
const { processes } = setup;

/** A random DAG: each step waits for up to three earlier steps, so branches run in parallel. */
function randomPlan(seed: number) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const handles = ["researcher", "analyst", "writer"];
  return {
    title: `plan ${seed}`,
    max_parallel: 6,
    steps: Array.from({ length: STEPS_PER_PLAN }, (_, i) => {
      const index = i + 1;
      const waitFor =
        index === 1 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => 1 + Math.floor(random() * i)))];
      return {
        index,
        title: `s${index}`,
        assignee: handles[index % 3],
        input: `sleep=0-4 item ${seed}.${index}`,
        wait_for: waitFor,
        on_failure: "abort_plan",
      };
    }),
  };
}

it("never double-dispatches with two processes completing steps of the same conversations", async () => {
  const env = { DATABASE_URL: setup.db.url!, BATON_MAX_PARALLEL: "6" };
  const a = await ExecutorProcess.start({ ...env, BATON_INSTANCE_ID: "process-a" });
  const b = await ExecutorProcess.start({ ...env, BATON_INSTANCE_ID: "process-b" });
  processes.push(a, b);
  // agents' pools must not be the bottleneck here
  await setup.db.prisma.agent.updateMany({ data: { concurrency: 1000 } });

  const conversationIds: string[] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    const created = await a.request<{ id: string }>({ type: "conversation", title: `c${c}`, agents: ["researcher", "analyst", "writer"] });
    conversationIds.push(created.id);
  }
  const submissions: Promise<PlanDTO>[] = [];
  for (let p = 0; p < PLANS_PER_CONVERSATION; p++) {
    for (const [c, conversationId] of conversationIds.entries()) {
      const target = (p + c) % 2 === 0 ? a : b;
      submissions.push(target.request<PlanDTO>({ type: "submit", conversationId, raw: randomPlan(p * 100 + c + 1) }));
    }
  }
  const plans = await Promise.all(submissions);

  const deadline = Date.now() + 600_000;
  for (;;) {
    const open = await setup.db.prisma.plan.count({ where: { id: { in: plans.map((p) => p.id) }, status: { in: ["running", "paused"] } } });
    if (open === 0) break;
    if (Date.now() > deadline) throw new Error(`${open} plans still open`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const steps = await setup.db.prisma.planStep.findMany({
    where: { planId: { in: plans.map((p) => p.id) } },
    select: { id: true, status: true },
  });
  expect(steps.length).toBe(CONVERSATIONS * PLANS_PER_CONVERSATION * STEPS_PER_PLAN);
  expect(steps.every((step) => step.status === "done")).toBe(true);

  const runsPerStep = await setup.db.prisma.run.groupBy({
    by: ["stepId"],
    where: { planId: { in: plans.map((p) => p.id) } },
    _count: { _all: true },
  });
  const doubles = runsPerStep.filter((row) => row._count._all !== 1);
  expect(doubles).toEqual([]);
  expect(runsPerStep.length).toBe(steps.length);

  // both processes really did the work
  const owners = await setup.db.prisma.run.groupBy({
    by: ["leaseOwner"],
    where: { planId: { in: plans.map((p) => p.id) } },
    _count: { _all: true },
  });
  expect(owners.map((row) => row.leaseOwner).sort()).toEqual(["process-a", "process-b"]);
  const dispatchMessages = await setup.db.prisma.message.count({ where: { kind: "dispatch", planId: { in: plans.map((p) => p.id) } } });
  expect(dispatchMessages).toBe(steps.length);

  // most units ran optimistically (one read, one write), the rest in the locked transaction
  type Stats = { optimistic: number; conflicts: number; neededTransaction: number; locked: number };
  const stats = await Promise.all([a.request<Stats>({ type: "stats" }), b.request<Stats>({ type: "stats" })]);
  for (const s of stats) {
    expect(s.optimistic).toBeGreaterThan(0);
    expect(s.locked).toBeGreaterThan(0);
  }
}, 900_000);
