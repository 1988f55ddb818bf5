/**
 * Any process runs any conversation's work (issue 42): two `BATON_ROLE=all` processes
 * on one PostgreSQL, with the default 64 slots each, and every plan submitted to the
 * first. Before, the first claimed every run it created (and the next ones as runs
 * ended) in its own statements, and the second never ran one; now a statement claims
 * only within its process's fair share, and both run agents.
 */
import { expect, it } from "vitest";
import { postgresWithProcesses } from "./testing/postgres-processes.ts";
import type { PlanDTO } from "./protocol/dto.ts";
import { ExecutorProcess } from "./executor/testing/process-handle.ts";

const PLANS = 8;
const STEPS_PER_PLAN = 6;

const setup = postgresWithProcesses();
const { processes } = setup;

it("runs plans submitted to one `all` process on both", { timeout: 120_000 }, async () => {
  const env = { DATABASE_URL: setup.db.url!, BATON_ROLE: "all" };
  const a = await ExecutorProcess.start({ ...env, BATON_INSTANCE_ID: "spread-a" });
  const b = await ExecutorProcess.start({ ...env, BATON_INSTANCE_ID: "spread-b" });
  processes.push(a, b);
  await setup.db.prisma.agent.updateMany({ data: { concurrency: 1000 } });
  const conversation = await a.request<{ id: string }>({
    type: "conversation",
    title: "spread",
    agents: ["researcher", "analyst", "writer"],
  });
  const plans = await Promise.all(
    Array.from({ length: PLANS }, (_, p) =>
      a.request<PlanDTO>({
        type: "submit",
        conversationId: conversation.id,
        raw: {
          title: `spread ${p}`,
          max_parallel: 3,
          steps: Array.from({ length: STEPS_PER_PLAN }, (_, i) => ({
            index: i + 1,
            title: `s${i + 1}`,
            assignee: ["researcher", "analyst", "writer"][i % 3],
            // long enough that the load outlasts the first samples of the cluster's load (one a second)
            input: `sleep=400-800 item ${p}.${i + 1}`,
            wait_for: i < 3 ? [] : [i - 2],
          })),
        },
      }),
    ),
  );
  const planIds = plans.map((plan) => plan.id);
  const deadline = Date.now() + 90_000;
  while ((await setup.db.prisma.plan.count({ where: { id: { in: planIds }, status: "running" } })) > 0) {
    if (Date.now() > deadline) throw new Error("plans did not end");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const owners = await setup.db.prisma.run.groupBy({ by: ["leaseOwner"], where: { planId: { in: planIds } }, _count: { _all: true } });
  const ranBy = Object.fromEntries(owners.map((row) => [row.leaseOwner ?? "(none)", row._count._all]));
  console.log(`[spread] ${PLANS * STEPS_PER_PLAN} steps submitted to spread-a ran: ${JSON.stringify(ranBy)}`);
  expect(await setup.db.prisma.plan.count({ where: { id: { in: planIds }, status: "completed" } })).toBe(PLANS);
  expect(ranBy["spread-a"]).toBeGreaterThan(0);
  expect(ranBy["spread-b"]).toBeGreaterThan(0);
});
