/**
 * The hot path's database functions on both databases: the optimistic write refuses
 * to apply anything when the plan changed since it was read; the run queue's claim
 * is an exact, oldest-first counting semaphore per agent and per model.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testing/test-database.ts";
import { CONFLICT_MARKER, sqlWrites, WriteBatch } from "../adapters/prisma/write-batch.ts";
import { prismaSql } from "./sql-runner.ts";
import { enterConversation } from "../adapters/prisma/plan-repository.ts";
import { optimisticMessageWrite } from "../adapters/prisma/testing/optimistic-write.ts";
import { claimRuns } from "../executor/run-queue.ts";

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

/** Queues `n` runs of an agent, `spacingMs` apart from `offsetMs` on (the claim takes the oldest first); their ids, oldest first. */
async function queueRuns(
  db: TestDatabase,
  conversationId: string,
  agentId: string,
  n: number,
  options: { model?: string; offsetMs?: number; spacingMs?: number } = {},
): Promise<string[]> {
  const { model, offsetMs = 0, spacingMs = 1 } = options;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = new Date(Date.now() + offsetMs + i * spacingMs);
    const run = await db.prisma.run.create({
      data: { conversationId, agentId, kind: "mention", input: "x", ...(model ? { model } : {}), status: "queued", createdAt },
    });
    ids.push(run.id);
  }
  return ids;
}

describe.each(["embedded", "postgres"] as const)("database functions on %s", (kind) => {
  it("applies an optimistic batch only while the plan is as it was read", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const { conversation, plan, write } = await optimisticMessageWrite(db.prisma);

    await expect(write(1)).rejects.toThrow(CONFLICT_MARKER);
    expect(await db.prisma.message.count()).toBe(0);
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).lastSeq).toBe(0);

    const { lastSeq } = await write(0);
    expect(lastSeq).toBe(1);
    expect(await db.prisma.message.count()).toBe(1);
    expect(await db.prisma.conversationEvent.count()).toBe(1);

    // the locked path reads the same facts after taking the lock
    const read = await db.prisma.$transaction((tx) =>
      enterConversation(tx, { conversationId: conversation.id, planId: plan.id, runId: null }),
    );
    expect(read.version).toBe(0);
    expect(read.runStatus).toBeNull();
  });

  it("records a finished run's usage, cache reads and writes included", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
    const agent = await db.prisma.agent.create({ data: { handle: "billed", name: "Billed" } });
    const [runId] = await queueRuns(db, conversation.id, agent.id, 1);
    await db.prisma.run.update({ where: { id: runId }, data: { status: "running" } });
    const batch = new WriteBatch();
    const endedAt = new Date(Date.now() - 1_000);
    const usage = { tokensIn: 9_000, tokensOut: 200, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, cost: 0.0153 };
    batch.add(sqlWrites.finishRun({ id: runId, status: "succeeded", endedAt, error: null, ...usage, usageEstimated: false }));
    await batch.flush(prismaSql(db.prisma), { conversationId: conversation.id, events: [], now: new Date() });
    const stored = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(stored).toMatchObject({ status: "succeeded", ...usage, usageEstimated: false });
  });

  it("refuses the write when any plan or run of a unit's expectation changed", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const { conversation, plan, write } = await optimisticMessageWrite(db.prisma);
    const other = await db.prisma.plan.create({ data: { conversationId: conversation.id, title: "q", maxParallel: 1, request: "r" } });
    const run = await db.prisma.run.create({ data: { conversationId: conversation.id, kind: "step", status: "running", input: "i" } });
    const done = await db.prisma.run.create({ data: { conversationId: conversation.id, kind: "step", status: "succeeded", input: "i" } });
    const plans = (version: number) => [{ planId: other.id, version }];
    const runs = (status: string) => [
      { runId: run.id, runStatus: "running" },
      { runId: done.id, runStatus: status },
    ];

    // the second plan's version, the second run's status, a plan that exists where the unit would create it
    await expect(write(0, { plans: plans(1), runs: runs("succeeded") })).rejects.toThrow(CONFLICT_MARKER);
    await expect(write(0, { plans: plans(0), runs: runs("running") })).rejects.toThrow(CONFLICT_MARKER);
    await expect(write(0, { plans: [{ planId: other.id, version: null }], runs: [] })).rejects.toThrow(CONFLICT_MARKER);
    expect(await db.prisma.message.count({ where: { conversationId: conversation.id } })).toBe(0);
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).lastSeq).toBe(0);

    // all of it as expected, and a plan not there yet where the unit creates one
    const { lastSeq } = await write(0, { plans: [...plans(0), { planId: "not-created-yet", version: null }], runs: runs("succeeded") });
    expect(lastSeq).toBe(1);
    expect(await db.prisma.message.count({ where: { conversationId: conversation.id, planId: plan.id } })).toBe(1);
  });

  it.runIf(kind === "postgres")("announces a unit's seqs at its commit when asked, and nothing for a refused unit", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const listener = await db.pool!.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(message.payload ?? ""));
    await listener.query(`LISTEN "baton-test#/"`);
    try {
      const { conversation, write } = await optimisticMessageWrite(db.prisma);
      const notice = { channel: "baton-test#/", before: '{"seqs":', after: "}" };
      await expect(write(1, undefined, notice)).rejects.toThrow(CONFLICT_MARKER);
      await write(0, undefined, notice);
      await write(0, undefined, notice);
      await expect.poll(() => heard.length).toBe(2);
      expect(heard.map((text) => JSON.parse(text))).toEqual([
        { seqs: { conversationId: conversation.id, first: 1, last: 1 } },
        { seqs: { conversationId: conversation.id, first: 2, last: 2 } },
      ]);
    } finally {
      listener.release();
    }
  });

  it("claims queued runs oldest first, never past an agent's or a model's pool, whoever asks at once", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
    const agent = await db.prisma.agent.create({ data: { handle: "pooled", name: "Pooled", concurrency: 3, model: "m1" } });
    const other = await db.prisma.agent.create({ data: { handle: "other", name: "Other", concurrency: 10, model: "m2" } });
    const pooled = await queueRuns(db, conversation.id, agent.id, 8, { model: "m1" });
    const others = await queueRuns(db, conversation.id, other.id, 6, { model: "m2" });
    const claim = (owner: string) => claimRuns(db.prisma, { owner, leaseMs: 30_000, max: 10, modelLimits: { m2: 4 } });
    // six claimers at once (on PostgreSQL really concurrent connections)
    const claimed = (await Promise.all(["a", "b", "c", "d", "e", "f"].map(claim))).flat();
    const running = await db.prisma.run.findMany({
      where: { status: "running" },
      select: { id: true, agentId: true, leaseOwner: true, startedAt: true },
    });
    expect(running.map((run) => run.id).sort()).toEqual(claimed.map((run) => run.id).sort());
    // the agent's pool (3) and the model's pool (4, below the agent's 10) are exact, and the oldest won
    expect(
      running
        .filter((run) => run.agentId === agent.id)
        .map((run) => run.id)
        .sort(),
    ).toEqual(pooled.slice(0, 3).sort());
    expect(
      running
        .filter((run) => run.agentId === other.id)
        .map((run) => run.id)
        .sort(),
    ).toEqual(others.slice(0, 4).sort());
    expect(running.every((run) => run.leaseOwner !== null && run.startedAt !== null)).toBe(true);

    // a freed slot goes to the oldest waiter
    await db.prisma.run.update({ where: { id: pooled[1] }, data: { status: "succeeded", endedAt: new Date() } });
    const next = await claim("g");
    expect(next.map((run) => run.id)).toEqual([pooled[3]]);
    // nothing beyond the limits, and nothing for a claimer without room
    expect(await claim("h")).toEqual([]);
    await db.prisma.run.update({ where: { id: others[0] }, data: { status: "failed", endedAt: new Date() } });
    expect(await claimRuns(db.prisma, { owner: "full", leaseMs: 30_000, max: 0, modelLimits: { m2: 4 } })).toEqual([]);
    expect((await claim("i")).map((run) => run.id)).toEqual([others[4]]);
  });

  it("without model limits, claimers at once never pass a pool's room and the oldest win", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
    const small = await db.prisma.agent.create({ data: { handle: "small", name: "Small", concurrency: 3, model: "m" } });
    const smaller = await db.prisma.agent.create({ data: { handle: "smaller", name: "Smaller", concurrency: 2, model: "m" } });
    const smallRuns = await queueRuns(db, conversation.id, small.id, 8, { spacingMs: 2 });
    const smallerRuns = await queueRuns(db, conversation.id, smaller.id, 5, { offsetMs: 1, spacingMs: 2 });
    const claimed = (
      await Promise.all(
        ["a", "b", "c", "d", "e", "f"].map((owner) => claimRuns(db.prisma, { owner, leaseMs: 30_000, max: 10, modelLimits: {} })),
      )
    ).flat();
    const running = await db.prisma.run.findMany({ where: { status: "running" }, select: { id: true } });
    expect(claimed.map((run) => run.id).sort()).toEqual(running.map((run) => run.id).sort());
    expect(new Set(claimed.map((run) => run.id)).size).toBe(claimed.length);
    expect(running.map((run) => run.id).sort()).toEqual([...smallRuns.slice(0, 3), ...smallerRuns.slice(0, 2)].sort());
  });

  it("without model limits, claims what one claim at a time would: each pool's oldest up to its room, the oldest of those up to the maximum", async () => {
    const db = await createTestDatabase({ kind });
    opened.push(db);
    const conversation = await db.prisma.conversation.create({ data: { title: "t" } });
    const agents = await Promise.all(
      [0, 1, 2].map((i) => db.prisma.agent.create({ data: { handle: `pool${i}`, name: `Pool ${i}`, concurrency: 1, model: "m" } })),
    );
    const base = Date.now();
    const queue = fc.record({
      // per agent: its room, runs already running, runs queued (offset of createdAt, due or in backoff)
      pools: fc.tuple(
        ...agents.map(() =>
          fc.record({
            concurrency: fc.integer({ min: 0, max: 3 }),
            running: fc.integer({ min: 0, max: 2 }),
            queued: fc.array(fc.record({ at: fc.integer({ min: 0, max: 40 }), backoff: fc.boolean() }), { maxLength: 6 }),
          }),
        ),
      ),
      max: fc.integer({ min: 1, max: 6 }),
      // a limit on a model none of these runs uses changes nothing for them
      modelLimits: fc.constantFrom<Record<string, number>>({}, { unused: 1 }),
    });
    await fc.assert(
      fc.asyncProperty(queue, async ({ pools, max, modelLimits }) => {
        await db.prisma.run.deleteMany();
        const waiting: { id: string; agentId: string; createdAt: number; due: boolean }[] = [];
        for (const [i, pool] of pools.entries()) {
          const agentId = agents[i].id;
          await db.prisma.agent.update({ where: { id: agentId }, data: { concurrency: pool.concurrency } });
          for (let r = 0; r < pool.running; r++) {
            await db.prisma.run.create({
              data: { conversationId: conversation.id, agentId, kind: "mention", input: "x", status: "running" },
            });
          }
          for (const [q, run] of pool.queued.entries()) {
            const createdAt = base + run.at * 10 + i * 3 + q; // distinct instants
            const row = await db.prisma.run.create({
              data: {
                conversationId: conversation.id,
                agentId,
                kind: "mention",
                input: "x",
                status: "queued",
                createdAt: new Date(createdAt),
                notBefore: run.backoff ? new Date(Date.now() + 60_000) : null,
              },
            });
            waiting.push({ id: row.id, agentId, createdAt, due: !run.backoff });
          }
        }
        // the reference: one candidate at a time, oldest first, while its pool has room
        const room = new Map(pools.map((pool, i) => [agents[i].id, pool.concurrency - pool.running]));
        const taken = new Set<string>();
        const pick = (limit: number) => {
          const picked: string[] = [];
          for (const run of waiting.filter((w) => w.due && !taken.has(w.id)).sort((a, b) => a.createdAt - b.createdAt)) {
            if (picked.length >= limit) break;
            if (room.get(run.agentId)! <= 0) continue;
            room.set(run.agentId, room.get(run.agentId)! - 1);
            taken.add(run.id);
            picked.push(run.id);
          }
          return picked;
        };
        const first = pick(max);
        const claimed = await claimRuns(db.prisma, { owner: "w", leaseMs: 30_000, max, modelLimits });
        expect(claimed.map((run) => run.id)).toEqual(first);
        const rows = await db.prisma.run.findMany({ where: { id: { in: first } }, select: { status: true, leaseOwner: true } });
        expect(rows.every((run) => run.status === "running" && run.leaseOwner === "w")).toBe(true);
        // a second claimer counts the first one's claims: it gets the rest, never past a pool's room
        const second = pick(10);
        expect((await claimRuns(db.prisma, { owner: "v", leaseMs: 30_000, max: 10, modelLimits })).map((run) => run.id)).toEqual(second);
      }),
      { numRuns: 12 },
    );
  });
});
