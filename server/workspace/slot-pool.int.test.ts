/**
 * Slots follow their step, through the real executor and the offline model: a
 * 4-step code plan takes the whole pool of 4 while it runs, and a second code plan
 * submitted the moment it ends runs too (the ended plan's slots hold no place), and
 * the ended plans' worktrees go while their branches stay.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { createAgentRunner } from "../agents/run-agent.ts";
import { createModelRegistry } from "../agents/model-registry.ts";
import { corePlanValidator } from "../agents/core-plan-validator.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";
import { createExecutorFixture, TEST_EXECUTOR_CONFIG, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { commitSubjects, createGitFixture, type GitFixture } from "./testing/git-fixture.ts";
import { fixtureRuntime } from "./testing/linked-conversation.ts";
import { countSlotsInUse } from "./slot-store.ts";
import type { WorkspaceRuntime } from "./workspace-runner.ts";

/** a generous bound for a plan to end on a loaded machine (not a speed claim) */
const PLAN_TIMEOUT_MS = 240_000;

let fixture: ExecutorFixture;
let repo: GitFixture;
let runtime: WorkspaceRuntime;
let repositoryId: string;

beforeEach(async () => {
  repo = await createGitFixture({ "README.md": "hello\n" });
  fixture = await createExecutorFixture({
    createRunner: (db) => {
      runtime = fixtureRuntime(db.prisma, repo, { settings: { slotsPerRepository: 4 } });
      return runtime.wrap(
        createAgentRunner({
          models: createModelRegistry({ env: {} }),
          artifacts: createPrismaArtifactStore(db.prisma),
          sessions: createPrismaSessionStore(db.prisma),
          memory: createPrismaConversationMemory(db.prisma),
          validatePlan: corePlanValidator(TEST_EXECUTOR_CONFIG.planLimits),
          extraTools: runtime.toolsFor,
        }),
      );
    },
  });
  const prisma = fixture.db.prisma;
  ({ id: repositoryId } = await prisma.repository.create({ data: { name: "notes", path: repo.repoPath } }));
  await prisma.conversation.update({ where: { id: fixture.conversationId }, data: { repositoryId } });
  await prisma.agent.updateMany({ where: { handle: { in: ["researcher", "analyst"] } }, data: { allowedTools: ["workspace"] } });
});
afterEach(async () => {
  await fixture?.close();
  await repo?.cleanup();
});

function fourStepPlan(title: string) {
  return fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title,
      max_parallel: 4,
      steps: [1, 2, 3, 4].map((index) => ({
        index,
        title: `${title} ${index}`,
        assignee: index % 2 ? "researcher" : "analyst",
        input: `Research topic ${index} of ${title}`,
        wait_for: [],
      })),
    },
  });
}

describe("the slot pool", () => {
  it("a 4-step code plan followed at once by another code plan runs: ended steps hold no place", async () => {
    const first = await fourStepPlan("first");
    expect(await fixture.waitForPlan(first.id, undefined, PLAN_TIMEOUT_MS)).toBe("completed");
    // submitted the moment the first ends, before any sweep: its four slots are still on disk
    const prisma = fixture.db.prisma;
    expect(await prisma.slot.count({ where: { planId: first.id, status: "active" } })).toBe(4);
    expect(await countSlotsInUse(prisma, repositoryId)).toBe(0);
    const second = await fourStepPlan("second");
    expect(await fixture.waitForPlan(second.id, undefined, PLAN_TIMEOUT_MS)).toBe("completed");

    const slots = await prisma.slot.findMany({ where: { planId: { in: [first.id, second.id] } }, orderBy: { stepIndex: "asc" } });
    expect(slots).toHaveLength(8);
    const failedRuns = await prisma.run.count({ where: { planId: { in: [first.id, second.id] }, status: { not: "succeeded" } } });
    expect(failedRuns).toBe(0);
    // each step's findings are committed on its branch
    const step = slots.find((slot) => slot.planId === second.id && slot.stepIndex === 4)!;
    expect(await commitSubjects(repo.repoPath, `${repo.initialCommit}..${step.branch}`)).toEqual(["second 4"]);

    // both plans ended: the sweep removes every worktree and keeps every branch
    expect((await runtime.retention.sweep()).worktrees).toBe(8);
    for (const slot of slots) expect(existsSync(slot.path)).toBe(false);
    expect(await prisma.slot.count({ where: { status: "active" } })).toBe(0);
    expect(await commitSubjects(repo.repoPath, `${repo.initialCommit}..${step.branch}`)).toEqual(["second 4"]);
  }, 600_000);
});
