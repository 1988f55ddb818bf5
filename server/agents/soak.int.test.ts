/**
 * Soak, in one process on the embedded database, with default settings (pools of 4
 * per sub-agent, max_parallel 4, 3 retries): about 50 random plans of 10–20 steps over
 * 5 conversations, with transient and fatal failures, commander decisions and forms
 * the test answers. Every plan must end, no step may run twice at a time, no pool
 * may be exceeded, and every conversation's seq must be gap-free.
 * BATON_SOAK_PLANS=500 runs a larger soak.
 */
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { createAgentRunner } from "./run-agent.ts";
import { createModelRegistry } from "./model-registry.ts";
import { createPrismaArtifactStore, createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { describeFigures, seededRandom, soakFigures, soakPlan } from "../executor/testing/soak.ts";

const PLANS = Number(process.env.BATON_SOAK_PLANS ?? 50);
const CONVERSATIONS = 5;
const SEED = Number(process.env.BATON_SOAK_SEED ?? 20261201);
/** a liveness bound, not a speed assertion: a stalled plan never ends at all */
const BOUND_MS = 150_000 * Math.max(1, PLANS / 50);

let fixture: ExecutorFixture | undefined;
afterAll(async () => fixture?.close());

it(`ends all ${PLANS} random plans over ${CONVERSATIONS} conversations with default pools`, async () => {
  const defaults = loadConfig({});
  // writes that are sometimes slow, as on a busy machine: results then queue behind busy
  // conversations and share statements (units.ts), under the same checks as the rest
  const slowWrites = seededRandom(SEED + 1);
  fixture = await createExecutorFixture({
    hooks: { beforeOptimisticWrite: () => new Promise((resolve) => setTimeout(resolve, Math.floor(slowWrites() * 12))) },
    config: { planLimits: defaults.planLimits, leaseMs: defaults.leaseMs, modelConcurrency: defaults.modelConcurrency },
    createRunner: (db) =>
      createAgentRunner({
        models: createModelRegistry({ env: {} }),
        artifacts: createPrismaArtifactStore(db.prisma),
        sessions: createPrismaSessionStore(db.prisma),
      }),
  });
  const { db, services, userId, executor } = fixture;
  const conversations = [fixture.conversationId];
  for (let c = 1; c < CONVERSATIONS; c++) {
    const created = await services.createConversation({ title: `soak ${c}`, agentHandles: ["researcher", "analyst", "writer"], userId });
    conversations.push(created.id);
  }
  const random = seededRandom(SEED);
  const started = Date.now();
  const plans = await Promise.all(
    Array.from({ length: PLANS }, (_, p) =>
      executor.submitPlan({
        conversationId: conversations[p % CONVERSATIONS],
        raw: soakPlan(random, `p${p}`, { sleepMaxMs: 60, blocks: true }),
      }),
    ),
  );
  const planIds = plans.map((plan) => plan.id);

  // a person answers every form as it appears
  const deadline = started + BOUND_MS;
  let open = planIds.length;
  while (open > 0 && Date.now() < deadline) {
    const forms = await db.prisma.form.findMany({ where: { planId: { in: planIds }, status: "open" }, select: { id: true } });
    for (const form of forms) {
      await fixture.app.forms.answerForm({ formId: form.id, userId, values: { answer: "blue" } }).catch(() => undefined);
    }
    open = await db.prisma.plan.count({ where: { id: { in: planIds }, status: { in: ["running", "paused"] } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const wall = Date.now() - started;
  await executor.idle();
  const figures = await soakFigures(db.prisma, planIds);
  console.log(describeFigures(`embedded seed=${SEED}`, figures, wall));
  const { batches, batched, conflicts, locked, optimistic } = executor.stats;
  console.log(
    `[soak embedded seed=${SEED}] units: ${optimistic} optimistic (${batched} of them in ${batches} shared statements), ${conflicts} refused, ${locked} locked`,
  );

  expect(figures.stuck).toEqual([]);
  expect(figures.byStatus.running ?? 0).toBe(0);
  expect(figures.doubleDispatches).toEqual([]);
  expect(figures.seqGaps).toEqual([]);
  expect(figures.lostNotRedispatchedOnce).toEqual([]);
  for (const [handle, { peak, limit, atPeak }] of Object.entries(figures.peaks)) {
    expect(peak, `@${handle} peaked at ${peak} live runs, limit ${limit}: ${atPeak.join("; ")}`).toBeLessThanOrEqual(limit);
  }
  // the pools were really contended: a soak that never fills them proves nothing
  for (const handle of ["researcher", "analyst", "writer"]) expect(figures.peaks[handle]?.peak).toBe(4);
  expect(figures.retries).toBeGreaterThan(0);
  // results did queue behind busy conversations and share statements: the soak checked those too
  expect(batches).toBeGreaterThan(0);
}, 600_000);
