/**
 * Bounding slots: worktrees of ended plans are removed by the workspace runtime's
 * sweep (branches kept), unmerged branches after the retention, and no new slot is
 * made while the slots folder holds more than its limit.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { agentProfile, recordingSink, runRequest } from "../agents/testing/agent-fixture.ts";
import type { AgentRunner } from "../executor/ports.ts";
import { fixtureRuntime, linkedConversation, workspacePlan } from "./testing/linked-conversation.ts";
import { createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";
import { acquireSlot, REACTION_SLOT_GRACE_MS } from "./slot-store.ts";
import { folderBytes, formatBytes, SlotsDiskFullError } from "./disk.ts";
import { SLOT_SWEEP_INTERVAL_MS, type Schedule } from "./retention.ts";
import { git, resolveCommit } from "./git.ts";
import type { WorkspaceRuntime } from "./workspace-runner.ts";
import type { WorkspaceSettings } from "./settings.ts";

const HOUR = 3_600_000;
const coder = agentProfile({ handle: "coder", allowedTools: ["workspace"] });

let db: TestDatabase;
let fixture: GitFixture;
let conversationId: string;
let repositoryId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  fixture = await createGitFixture({ "a.txt": "a\n" });
  ({ repositoryId, conversationId } = await linkedConversation(db.prisma, fixture));
});
afterEach(async () => {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

async function newPlan(steps = 1): Promise<string> {
  return workspacePlan(
    db.prisma,
    conversationId,
    Array.from({ length: steps }, (_, index) => ({ title: `Step ${index + 1}` })),
  );
}

function runtime(settings: Partial<WorkspaceSettings> = {}): WorkspaceRuntime {
  return fixtureRuntime(db.prisma, fixture, { settings });
}

/** An agent that writes one file through the slot tools. */
function writer(workspace: WorkspaceRuntime, file: string, content: string): AgentRunner {
  return {
    async run(request) {
      await workspace.toolsFor(request)!.slot_write.execute!({ path: file, content }, { toolCallId: "t", messages: [] });
      return { kind: "ok", text: "", summary: "wrote", files: [], untrusted: false, usage: { tokensIn: 0, tokensOut: 0, cost: 0 } };
    },
  };
}

function stepRequest(planId: string, stepIndex = 1) {
  return runRequest({
    runId: `run-${planId}-${stepIndex}`,
    conversationId,
    agent: coder,
    step: { planId, stepIndex, title: `Step ${stepIndex}` },
  });
}

describe("slots of ended plans", () => {
  it("removes the worktrees of ended plans at the next sweep, keeping their branches; a running plan keeps its worktree", async () => {
    const workspace = runtime({ slotRetentionMs: 24 * HOUR });
    const [ended, running] = [await newPlan(), await newPlan()];
    for (const planId of [ended, running]) {
      const result = await workspace.wrap(writer(workspace, "a.txt", `by ${planId}\n`)).run(stepRequest(planId), recordingSink());
      expect(result.kind).toBe("ok");
    }
    const now = new Date(Date.now() + 60_000);
    await db.prisma.plan.update({ where: { id: ended }, data: { endedAt: new Date() } });
    const slotPath = async (planId: string) => (await db.prisma.slot.findFirstOrThrow({ where: { planId } })).path;
    const paths = { ended: await slotPath(ended), running: await slotPath(running) };

    expect(await workspace.retention.sweep(now)).toEqual({ worktrees: 1, branches: 0 });
    expect(existsSync(paths.ended)).toBe(false);
    expect(existsSync(paths.running)).toBe(true);
    expect(await db.prisma.slot.findFirstOrThrow({ where: { planId: ended } })).toMatchObject({ status: "removed", removedAt: now });
    // the result stays mergeable: the branch is kept
    expect(await showFile(fixture.repoPath, `baton/${ended}-1`, "a.txt")).toBe(`by ${ended}\n`);
    expect(await workspace.retention.sweep(now)).toEqual({ worktrees: 0, branches: 0 });
  });

  it("deletes the branches of plans nobody merged once they ended longer ago than the retention; merged plans keep theirs", async () => {
    const workspace = runtime({ slotRetentionMs: 2 * HOUR });
    const [unmerged, merged, recent] = [await newPlan(), await newPlan(), await newPlan()];
    for (const planId of [unmerged, merged, recent]) {
      await workspace.wrap(writer(workspace, "a.txt", `by ${planId}\n`)).run(stepRequest(planId), recordingSink());
    }
    await git(["branch", `baton/${merged}-result`, `baton/${merged}-1`], { cwd: fixture.repoPath });
    const ended = new Date();
    for (const planId of [unmerged, merged]) await db.prisma.plan.update({ where: { id: planId }, data: { endedAt: ended } });
    await db.prisma.plan.update({ where: { id: recent }, data: { endedAt: new Date(ended.getTime() + 2 * HOUR) } });

    // at once: the worktrees go, every branch stays
    expect(await workspace.retention.sweep(new Date(ended.getTime() + 1000))).toEqual({ worktrees: 3, branches: 0 });
    // past the retention of the first two: the unmerged plan's branch goes
    expect(await workspace.retention.sweep(new Date(ended.getTime() + 3 * HOUR))).toEqual({ worktrees: 0, branches: 1 });
    expect(await resolveCommit(fixture.repoPath, `refs/heads/baton/${unmerged}-1`)).toBeNull();
    expect(await resolveCommit(fixture.repoPath, `refs/baton/base/${unmerged}-1`)).toBeNull();
    expect(await db.prisma.slot.findFirstOrThrow({ where: { planId: unmerged } })).toMatchObject({ status: "deleted" });
    expect(await showFile(fixture.repoPath, `baton/${merged}-1`, "a.txt")).toBe(`by ${merged}\n`);
    expect(await showFile(fixture.repoPath, `baton/${recent}-1`, "a.txt")).toBe(`by ${recent}\n`);
    expect(await workspace.retention.sweep(new Date(ended.getTime() + 3 * HOUR))).toEqual({ worktrees: 0, branches: 0 });
  });

  it("leaves a slot taken again after its plan ended (a reaction's) to its run", async () => {
    const workspace = runtime();
    const planId = await newPlan();
    await workspace.wrap(writer(workspace, "a.txt", "A\n")).run(stepRequest(planId), recordingSink());
    await db.prisma.plan.update({ where: { id: planId }, data: { endedAt: new Date(Date.now() - 60_000) } });
    const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId } });
    // taken again after the end: the row's updatedAt is past the plan's end
    await db.prisma.slot.update({ where: { id: slot.id }, data: { headCommit: slot.headCommit } });
    expect((await workspace.retention.sweep(new Date())).worktrees).toBe(0);
    expect(existsSync(slot.path)).toBe(true);
    // a run that died in another process: after the grace the sweep removes it
    expect((await workspace.retention.sweep(new Date(Date.now() + REACTION_SLOT_GRACE_MS + 60_000))).worktrees).toBe(1);
    expect(existsSync(slot.path)).toBe(false);
  });

  it("sweeps on the runtime's timer until stopped", async () => {
    const workspace = runtime({ slotRetentionMs: 2 * HOUR });
    const planId = await newPlan();
    await workspace.wrap(writer(workspace, "a.txt", "A\n")).run(stepRequest(planId), recordingSink());
    await db.prisma.plan.update({ where: { id: planId }, data: { endedAt: new Date() } });

    const scheduled: { sweep: () => Promise<void>; ms: number; stopped: boolean }[] = [];
    const schedule: Schedule = (sweep, ms) => {
      const entry = { sweep, ms, stopped: false };
      scheduled.push(entry);
      return () => (entry.stopped = true);
    };
    workspace.retention.start({ schedule });
    workspace.retention.start({ schedule });
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].ms).toBe(SLOT_SWEEP_INTERVAL_MS);
    await scheduled[0].sweep();
    expect(await db.prisma.slot.findFirstOrThrow({ where: { planId } })).toMatchObject({ status: "removed" });
    workspace.retention.stop();
    expect(scheduled[0].stopped).toBe(true);
  });
});

describe("the disk bound of slots", () => {
  it("refuses a new slot while the slots folder holds more than the limit, as a transient failure", async () => {
    const limit = 1_000_000;
    const workspace = runtime({ slotsMaxBytes: limit });
    const planId = await newPlan(2);
    const first = await workspace.wrap(writer(workspace, "a.txt", "A\n")).run(stepRequest(planId, 1), recordingSink());
    expect(first.kind).toBe("ok");
    // the first step leaves a big build output in its slot
    const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId, stepIndex: 1 } });
    await writeFile(path.join(slot.path, "build.bin"), Buffer.alloc(limit + 1));

    const sink = recordingSink();
    const second = await workspace.wrap(writer(workspace, "b.txt", "B\n")).run(stepRequest(planId, 2), sink);
    expect(second).toMatchObject({
      kind: "failed",
      transient: true,
      reason: expect.stringContaining("The slots folder holds more than 976.6 KiB (BATON_SLOTS_MAX_BYTES)") as unknown,
    });
    expect(await db.prisma.slot.count({ where: { planId, stepIndex: 2 } })).toBe(0);
    // the step that already has its slot goes on (a resume spends no new disk)
    const again = await workspace.wrap(writer(workspace, "a.txt", "AA\n")).run(stepRequest(planId, 1), recordingSink());
    expect(again.kind).toBe("ok");
    // once the space is back, the new slot is made
    await rm(path.join(slot.path, "build.bin"));
    const retried = await workspace.wrap(writer(workspace, "b.txt", "B\n")).run(stepRequest(planId, 2), recordingSink());
    expect(retried.kind).toBe("ok");
  });

  it("acquireSlot throws SlotsDiskFullError naming the sizes", async () => {
    const planId = await newPlan();
    const slotsDir = path.join(fixture.root, "slots");
    await mkdir(path.join(slotsDir, "other"), { recursive: true });
    await writeFile(path.join(slotsDir, "other", "big"), Buffer.alloc(2048));
    const error = await acquireSlot(db.prisma, {
      repositoryId,
      planId,
      stepIndex: 1,
      base: { commit: "main" },
      slotsDir,
      limit: 4,
      maxBytes: 1024,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SlotsDiskFullError);
    expect(error).toMatchObject({ maxBytes: 1024, code: "slots-disk-full" });
    expect((error as SlotsDiskFullError).usedBytes).toBeGreaterThan(1024);
  });

  it("counts file bytes under a folder without following links, stopping past the limit", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "baton-disk-"));
    try {
      expect(await folderBytes(path.join(dir, "missing"))).toBe(0);
      await mkdir(path.join(dir, "a", "b"), { recursive: true });
      await writeFile(path.join(dir, "a", "one"), Buffer.alloc(100));
      await writeFile(path.join(dir, "a", "b", "two"), Buffer.alloc(250));
      expect(await folderBytes(dir)).toBe(350);
      expect(await folderBytes(dir, 120)).toBeGreaterThan(120);
      expect(formatBytes(5 * 1024 ** 3)).toBe("5 GiB");
      expect(formatBytes(512)).toBe("512 bytes");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
