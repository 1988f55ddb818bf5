/**
 * Soak and chaos across real processes on one PostgreSQL, with default settings
 * (pools of 4 per sub-agent, max_parallel 4, 30 s leases): two full processes and a
 * web-only one receive about 50 random plans over 5 conversations; one full process
 * is SIGKILLed mid-run and started again. Every plan must end (or wait on a person,
 * which the test answers), no step may run twice at a time, no pool may be exceeded
 * across processes, every run lost with the killed process must be re-dispatched
 * exactly once, seq must stay gap-free, and the web process must never run an agent.
 * BATON_SOAK_PLANS=500 runs a larger soak.
 */
import { expect, it } from "vitest";
import { postgresWithProcesses } from "./testing/postgres-processes.ts";
import type { PlanDTO } from "./protocol/dto.ts";
import { ExecutorProcess } from "./executor/testing/process-handle.ts";
import { describeFigures, seededRandom, soakFigures, soakPlan } from "./executor/testing/soak.ts";

const PLANS = Number(process.env.BATON_SOAK_PLANS ?? 50);
const CONVERSATIONS = 5;
const SEED = Number(process.env.BATON_SOAK_SEED ?? 7);
/** a liveness bound, not a speed assertion: stalled plans never end at all */
const BOUND_MS = 200_000 * Math.max(1, PLANS / 50);

const setup = postgresWithProcesses();
const { processes } = setup;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it(`ends ${PLANS} plans on two processes and a web node, one process SIGKILLed mid-run`, { timeout: 400_000 }, async () => {
  // Each full process has 10 slots, half of what the pools allow at once (commander 8,
  // three agents 4 each): with the default 64, the process whose statements free slots
  // claims them again at once, and a process that ran out of runs may never get one back,
  // which left B with nothing live to kill (seen: B ran 9 runs, A 730).
  const start = (instance: string, role: string) =>
    ExecutorProcess.start({
      DATABASE_URL: setup.db.url!,
      BATON_INSTANCE_ID: instance,
      BATON_ROLE: role,
      BATON_TEST_RUNNER: "offline",
      BATON_WORKER_SLOTS: "10",
    }).then((child) => {
      processes.push(child);
      return child;
    });
  const [a, b, web] = await Promise.all([start("process-a", "all"), start("process-b", "all"), start("process-web", "web")]);

  const conversations: string[] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    conversations.push(
      (await a.request<{ id: string }>({ type: "conversation", title: `soak ${c}`, agents: ["researcher", "analyst", "writer"] })).id,
    );
  }
  const random = seededRandom(SEED);
  const targets = [a, b, web];
  const started = Date.now();
  const plans = await Promise.all(
    Array.from({ length: PLANS }, (_, p) =>
      targets[p % targets.length].request<PlanDTO>({
        type: "submit",
        conversationId: conversations[p % CONVERSATIONS],
        raw: soakPlan(random, `p${p}`, { sleepMaxMs: 150, blocks: true }),
      }),
    ),
  );
  const planIds = plans.map((plan) => plan.id);

  // kill B hard while it runs agents and a good part of the work is still ahead
  let seenLive: string[];
  for (;;) {
    const [live, ended] = await Promise.all([
      setup.db.prisma.run.findMany({ where: { status: "running", leaseOwner: "process-b" }, select: { id: true } }),
      setup.db.prisma.run.count({ where: { status: { notIn: ["queued", "running"] } } }),
    ]);
    if (live.length >= 3 && ended >= 60) {
      seenLive = live.map((run) => run.id);
      break;
    }
    if (Date.now() - started > BOUND_MS) {
      const runs = await setup.db.prisma.run.groupBy({ by: ["leaseOwner", "status"], _count: { _all: true } });
      const plansNow = await setup.db.prisma.plan.groupBy({ by: ["status"], _count: { _all: true } });
      throw new Error(
        `process B never had runs live: runs ${JSON.stringify(runs.map((r) => [r.leaseOwner, r.status, r._count._all]))}, plans ${JSON.stringify(plansNow.map((p) => [p.status, p._count._all]))}`,
      );
    }
    await sleep(50);
  }
  await b.kill();
  const killedAt = new Date();
  // B may have claimed more runs between that look and the signal: the runs it held when it
  // died are those still leased to it a moment later (a commit it sent just before dying
  // has landed by then), and those the others already took over (its liveness lock went
  // with it, so they may within a second: a lost run's owner is cleared)
  await sleep(500);
  const heldAtKill = (
    await setup.db.prisma.run.findMany({
      where: {
        OR: [
          { status: "running", leaseOwner: "process-b" },
          { status: "lost", endedAt: { gte: killedAt } },
        ],
      },
      select: { id: true },
    })
  ).map((run) => run.id);
  const restarted = await start("process-b2", "all");

  // a person answers every form as it appears
  let open = planIds.length;
  while (open > 0 && Date.now() - started < BOUND_MS) {
    const forms = await setup.db.prisma.form.findMany({ where: { planId: { in: planIds }, status: "open" }, select: { id: true } });
    for (const form of forms) await a.request({ type: "answer", formId: form.id, values: { answer: "blue" } }).catch(() => undefined);
    open = await setup.db.prisma.plan.count({ where: { id: { in: planIds }, status: { in: ["running", "paused"] } } });
    await sleep(200);
  }
  const wall = Date.now() - started;
  const figures = await soakFigures(setup.db.prisma, planIds);
  console.log(describeFigures(`postgres, 3 processes, 1 SIGKILL, seed=${SEED}`, figures, wall));
  for (const [name, child] of [
    ["A", a],
    ["web node", web],
  ] as const) {
    const stats = await child.request<{ optimistic: number; batches: number; batched: number; conflicts: number; locked: number }>({
      type: "stats",
    });
    console.log(
      `[soak postgres] units on ${name}: ${stats.optimistic} optimistic (${stats.batched} of them in ${stats.batches} shared statements), ${stats.conflicts} refused, ${stats.locked} locked`,
    );
  }

  expect(figures.stuck).toEqual([]);
  expect(figures.byStatus.running ?? 0).toBe(0);
  expect(figures.doubleDispatches).toEqual([]);
  expect(figures.seqGaps).toEqual([]);
  expect(figures.lostNotRedispatchedOnce).toEqual([]);
  for (const [handle, { peak, limit, atPeak }] of Object.entries(figures.peaks)) {
    expect(peak, `@${handle} peaked at ${peak} live runs, limit ${limit}: ${atPeak.join("; ")}`).toBeLessThanOrEqual(limit);
  }
  for (const handle of ["researcher", "analyst", "writer"]) expect(figures.peaks[handle]?.peak).toBe(4);

  // the runs B held when it died were declared lost (or cancelled, when their plan ended
  // meanwhile), and no other run was
  const lost = await setup.db.prisma.run.findMany({
    where: { status: "lost" },
    select: { id: true, startedAt: true, endedAt: true, error: true },
  });
  const describe = (run: (typeof lost)[number]) =>
    `${run.id} started ${run.startedAt?.toISOString()} lost ${run.endedAt?.toISOString()}: ${run.error}`;
  expect(lost.filter((run) => !heldAtKill.includes(run.id)).map(describe)).toEqual([]);
  const heldNotLost = await setup.db.prisma.run.findMany({
    where: { id: { in: heldAtKill.filter((id) => !lost.some((run) => run.id === id)) } },
    select: { id: true, status: true },
  });
  expect(heldNotLost.filter((run) => run.status !== "cancelled")).toEqual([]);
  expect(lost.length).toBeGreaterThan(0);
  // work went where capacity was: both full processes ran agents, the web node none
  const owners = await setup.db.prisma.run.groupBy({ by: ["leaseOwner"], where: { planId: { in: planIds } }, _count: { _all: true } });
  const ranBy = new Set(owners.map((row) => row.leaseOwner));
  // (B's share is the runs it had live before it was killed, at least 3; a run's owner is
  // cleared when it is lost, and the restarted B may find nothing left to claim)
  expect(ranBy.has("process-a")).toBe(true);
  expect(seenLive.length).toBeGreaterThanOrEqual(3);
  expect(ranBy.has("process-web")).toBe(false);
  // plans submitted to the web node ran all the same
  const viaWeb = planIds.filter((_, p) => p % targets.length === 2);
  expect(await setup.db.prisma.plan.count({ where: { id: { in: viaWeb }, status: { in: ["completed", "partial", "failed"] } } })).toBe(
    viaWeb.length,
  );
  await Promise.all([a.stop(), restarted.stop(), web.stop()]);
});
