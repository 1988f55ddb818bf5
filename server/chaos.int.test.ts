/**
 * Chaos across real processes on one PostgreSQL (issue 42): a web node and two workers
 * run plans while the test (a) terminates every database connection, four times in a
 * row, (b) SIGSTOPs a worker for a few seconds, then SIGCONTs it, (c) SIGKILLs the other
 * worker mid-run and starts it again. Every plan must complete, no step may run twice at a time, no process
 * may exit (but the killed one), the killed worker's runs must be taken over long before
 * their 30 s lease would run out (its liveness lock died with it), and Socket.IO viewers
 * on the web node must receive every event live: the web node re-subscribes after the
 * cut and replays what was committed meanwhile.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "./db/testing/test-database.ts";
import { seedWorkspace } from "./services/seed.ts";
import { ServerProcess } from "./testing/server-handle.ts";
import { signUpCookie, Viewer } from "./testing/live-viewers.ts";
import type { ConversationEventDTO } from "./protocol/events.ts";
import type { PlanDTO } from "./protocol/dto.ts";
import { soakFigures } from "./executor/testing/soak.ts";
import { deadOwnersOf } from "./db/liveness.ts";

const SECRET = "chaos-test-secret-0123456789abcdef";
process.env.BETTER_AUTH_SECRET = SECRET;

const CONVERSATIONS = 3;
const PLANS_PER_CONVERSATION = 3;
/**
 * Chains of five steps (three branches): enough work that the kill in (c) still finds
 * w2 running after the cut and the freeze, even on a slow machine. With chains of three
 * the plans could all end while w1 was catching up, and the test timed out waiting.
 */
const STEPS_PER_PLAN = 15;
/** how many times every database connection is cut, one after another */
const CUTS = 4;
/** a liveness bound, not a speed assertion: a stalled plan never ends */
const BOUND_MS = 70_000;
/** the lease the killed worker's runs would otherwise wait out */
const LEASE_MS = 30_000;

let db: TestDatabase;
let tmp: string;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
  tmp = await mkdtemp(path.join(os.tmpdir(), "baton-chaos-"));
  db = await createTestDatabase({ kind: "postgres" });
  await seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: false });
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await db?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A plan of parallel branches; lost runs are retried within its budget. */
function plan(seed: number) {
  const handles = ["researcher", "analyst", "writer"];
  return {
    title: `chaos ${seed}`,
    max_parallel: 4,
    steps: Array.from({ length: STEPS_PER_PLAN }, (_, i) => ({
      index: i + 1,
      title: `s${i + 1}`,
      assignee: handles[i % 3],
      // a directive line ("sleep=300-700" without "@offline" was prose: no step waited at all)
      input: `@offline sleep=${300 + ((seed * 7 + i * 13) % 5) * 100}\nitem ${seed}.${i + 1}`,
      wait_for: i < 3 ? [] : [i - 2],
      on_failure: "abort_plan",
      // a lost run counts against its step's retries: each of the four cuts and the kill may
      // lose one step's run in turn (a plan failed so with 3), and what is tested here is
      // that the processes recover, not the retry budget
      max_retries: CUTS + 2,
    })),
  };
}

it(
  "plans complete through a connection cut, a frozen worker and a killed one, and viewers miss no event",
  { timeout: 180_000 },
  async () => {
    const env = {
      DATABASE_URL: db.url!,
      BATON_DATA_DIR: tmp,
      BATON_SEED_DEMO: "0",
      BETTER_AUTH_SECRET: SECRET,
      BATON_WORKER_SLOTS: "8",
    };
    const spawn = (instance: string, role: string) => {
      const child = ServerProcess.spawn({ ...env, BATON_INSTANCE_ID: instance, BATON_ROLE: role });
      cleanups.push(() => child.kill());
      return child;
    };
    const web = spawn("chaos-web", "web");
    const w1 = spawn("chaos-w1", "worker");
    let w2 = spawn("chaos-w2", "worker");
    const [webReady, w1Ready, w2Ready] = await Promise.all([web.ready, w1.ready, w2.ready]);
    const webUrl = `http://127.0.0.1:${webReady.port}`;
    await db.prisma.agent.updateMany({ data: { concurrency: 1000 } });

    const { cookie, userId } = await signUpCookie(db.prisma, "chaos-viewer@example.com");
    const conversations: string[] = [];
    for (let c = 0; c < CONVERSATIONS; c++) {
      conversations.push(
        (
          await web.request<{ id: string }>({
            type: "conversation",
            title: `chaos ${c}`,
            agents: ["researcher", "analyst", "writer"],
            userId,
          })
        ).id,
      );
    }
    // what each viewer received live (not what its sync replayed on a gap), per conversation
    const viewers = [new Viewer(webUrl, cookie), new Viewer(webUrl, cookie)];
    cleanups.push(() => viewers.forEach((viewer) => viewer.close()));
    const live = viewers.map(() => new Map<string, Set<number>>());
    viewers.forEach((viewer, v) =>
      viewer.socket.on("conversation-events", (events: ConversationEventDTO[]) => {
        for (const event of events) {
          const seen = live[v].get(event.conversationId) ?? new Set<number>();
          seen.add(event.seq);
          live[v].set(event.conversationId, seen);
        }
      }),
    );
    await Promise.all(viewers.map((viewer) => viewer.connected()));
    for (const viewer of viewers) for (const id of conversations) viewer.follow(id, 0);
    await waitFor(() => viewers.every((viewer) => [...viewer.follows.values()].every(({ sync }) => sync.isJoined)), "joins answered");

    const started = Date.now();
    const plans: PlanDTO[] = [];
    let n = 0;
    for (let p = 0; p < PLANS_PER_CONVERSATION; p++) {
      for (const id of conversations) plans.push(await web.request<PlanDTO>({ type: "submit", conversationId: id, raw: plan(++n) }));
    }
    const planIds = plans.map((p) => p.id);
    const runningOf = (owner: string) => db.prisma.run.findMany({ where: { status: "running", leaseOwner: owner }, select: { id: true } });

    // (a) every database connection cut, while both workers run agents
    await waitFor(async () => (await runningOf("chaos-w1")).length > 0 && (await runningOf("chaos-w2")).length > 0, "both workers running");
    // several times in a row, as a flapping proxy does: the compiled server once kept a
    // run "live" with nothing running it after the fourth cut (a claim across a liveness loss)
    const cutter = new pg.Client({ connectionString: db.url });
    await cutter.connect();
    const cut = { rows: [{ n: 0 }] };
    for (let round = 0; round < CUTS; round++) {
      if (round > 0) await sleep(700);
      const { rows } = await cutter.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      cut.rows[0].n += rows[0].n;
    }
    await cutter.end();

    // (b) w1 frozen for a few seconds: it keeps its liveness lock, so nobody takes its runs.
    // Frozen only once it holds its lock again: runs its statements claimed before that are
    // not started and are rightly taken over if it stops first (liveness-loss.int.test.ts),
    // so the runs watched are those claimed after its lock was seen held.
    const query = async (text: string, values: unknown[]) => ({ rows: await db.prisma.$queryRawUnsafe<unknown[]>(text, ...values) });
    await waitFor(async () => (await deadOwnersOf(query, ["chaos-w1"])).length === 0, "w1 holding its liveness lock again", 30_000);
    const lockHeldAt = Date.now();
    const claimedSinceLock = () =>
      db.prisma.run.findMany({
        where: { status: "running", leaseOwner: "chaos-w1", startedAt: { gt: new Date(lockHeldAt) } },
        select: { id: true },
      });
    await waitFor(async () => (await claimedSinceLock()).length > 0, "w1 running again after the cut");
    const frozenRuns = (await claimedSinceLock()).map((run) => run.id);
    process.kill(w1Ready.pid, "SIGSTOP");
    await sleep(3_000);
    process.kill(w1Ready.pid, "SIGCONT");

    // (c) w2 killed mid-run, and started again
    await waitFor(async () => {
      if ((await runningOf("chaos-w2")).length > 0) return true;
      const active = await db.prisma.plan.count({ where: { id: { in: planIds }, status: { in: ["running", "paused"] } } });
      if (active === 0) throw new Error("every plan ended before w2 ran again: the test needs more work per plan");
      return false;
    }, "w2 running");
    // noted before the signal: the "exit" event that ends kill() can come seconds later on a busy machine
    const killedAt = Date.now();
    await w2.kill();
    const heldAtKill = (await runningOf("chaos-w2")).map((run) => run.id);
    w2 = spawn("chaos-w2b", "worker");
    await w2.ready;

    await waitFor(
      async () => (await db.prisma.plan.count({ where: { id: { in: planIds }, status: { in: ["running", "paused"] } } })) === 0,
      "plans to end",
      BOUND_MS,
    );
    const wall = Date.now() - started;

    const figures = await soakFigures(db.prisma, planIds);
    const statuses = await db.prisma.plan.groupBy({ by: ["status"], where: { id: { in: planIds } }, _count: { _all: true } });
    const takeovers = await db.prisma.run.findMany({
      where: { id: { in: heldAtKill } },
      select: { id: true, status: true, endedAt: true },
    });
    // a statement w2 sent just before its death still commits (PostgreSQL finishes it), so a
    // run read as running at the kill may have been ended by w2 itself a moment earlier
    const endedBy = (run: (typeof takeovers)[number]) => (run.endedAt ? run.endedAt.getTime() - killedAt : Number.POSITIVE_INFINITY);
    const takenOver = takeovers.filter((run) => run.status === "lost");
    const takeoverMs = takenOver.map(endedBy);
    const endedByItself = takeovers.filter((run) => run.status !== "lost");
    const frozenLost = await db.prisma.run.count({ where: { id: { in: frozenRuns }, status: "lost" } });
    const owners = await db.prisma.run.groupBy({ by: ["leaseOwner"], where: { planId: { in: planIds } }, _count: { _all: true } });
    const lastSeq = new Map(
      (await db.prisma.conversation.findMany({ where: { id: { in: conversations } }, select: { id: true, lastSeq: true } })).map((c) => [
        c.id,
        c.lastSeq,
      ]),
    );
    const events = [...lastSeq.values()].reduce((a, b) => a + b, 0);
    await waitFor(
      () => viewers.every((viewer) => [...viewer.follows].every(([id, { store }]) => store.getState().lastSeq === lastSeq.get(id))),
      "viewers caught up",
    );
    const missedLive = live.flatMap((byConversation, v) =>
      conversations.flatMap((id) => {
        const seen = byConversation.get(id) ?? new Set<number>();
        return Array.from({ length: lastSeq.get(id)! }, (_, i) => i + 1)
          .filter((seq) => !seen.has(seq))
          .map((seq) => `viewer ${v} ${id}:${seq}`);
      }),
    );
    const readyz = await fetch(`${webUrl}/readyz`);
    console.log(
      `[chaos] ${plans.length} plans (${statuses.map((s) => `${s._count._all} ${s.status}`).join(", ")}) in ${wall} ms; ` +
        `${figures.runs} runs, ${figures.takeovers} lost; cut ${cut.rows[0].n} connections; ` +
        `runs by owner ${owners.map((o) => `${o.leaseOwner ?? "(lost)"}=${o._count._all}`).join(" ")}; ` +
        `SIGKILL took over ${takenOver.length} runs in ${takeoverMs.map((ms) => `${ms} ms`).join(", ")}` +
        ` (${endedByItself.length} more ended by w2's last statement); ` +
        `${frozenRuns.length} runs live on the frozen worker, ${frozenLost} of them lost; ` +
        `${events} events, delivered live ${viewers.length * events - missedLive.length} of ${viewers.length * events} ` +
        `(gap replays ${viewers.map((viewer) => viewer.replays().gapReplays).join("+")})`,
    );

    if (statuses.some((s) => s.status !== "completed")) {
      const failed = await db.prisma.planStep.findMany({
        where: { planId: { in: planIds }, status: "failed" },
        select: { planId: true, index: true, attempts: true, transientFailures: true, failureReason: true },
      });
      console.log(`[chaos] failed steps: ${JSON.stringify(failed)}`);
    }
    expect(statuses.every((s) => s.status === "completed")).toBe(true);
    expect(figures.doubleDispatches).toEqual([]);
    expect(figures.seqGaps).toEqual([]);
    // no process exited but the killed one
    for (const [name, child] of [
      ["web", web],
      ["w1", w1],
      ["w2b", w2],
    ] as const) {
      expect({ name, exitCode: child.child.exitCode, signal: child.child.signalCode }).toEqual({ name, exitCode: null, signal: null });
    }
    // the killed worker's runs were taken over through its liveness lock, not its lease
    expect(heldAtKill.length).toBeGreaterThan(0);
    for (const ms of takeoverMs) expect(ms).toBeLessThan(LEASE_MS / 2);
    for (const run of endedByItself)
      expect({ run: run.id, endedAfterKill: endedBy(run) > 0 }).toEqual({ run: run.id, endedAfterKill: false });
    // the frozen worker kept its lock: its runs were not taken over while it was stopped
    expect(frozenLost).toBe(0);
    // both workers ran agents, the web node none
    const ranBy = new Set(owners.map((row) => row.leaseOwner));
    expect(ranBy.has("chaos-w1")).toBe(true);
    expect(ranBy.has("chaos-web")).toBe(false);
    // every event reached every viewer live, none only by the viewer's own replay
    expect(missedLive).toEqual([]);
    expect(readyz.status).toBe(200);
    void w2Ready;
  },
);
