/**
 * Durable slots: the Slot row is executor state like a run. A slot is reserved
 * (a row) under a lock on the repository row, then its worktree is made or resumed
 * (slots.ts, idempotent), then the row gets its commits. A process that restarts or
 * takes the step over finds the row and resumes the same branch; nothing is recreated.
 *
 * A slot follows its step: it counts against the repository's pool only while its
 * step runs (in_progress), its worktree is removed once the plan has ended (the
 * branch stays, so the result can be merged and a reaction can make the worktree
 * again), and the branches of plans nobody merged go after the retention.
 */
import path from "node:path";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { resultBranch, slotBranch, slotFolderName } from "./naming.ts";
import { resolveCommit } from "./git.ts";
import { commitSlot, ensureSlot, removeSlot, type EnsuredSlot, type SlotBase } from "./slots.ts";
import { folderBytes, SlotsDiskFullError } from "./disk.ts";

export class SlotPoolFullError extends Error {
  readonly code = "slot-pool-full";
  constructor(
    readonly repositoryId: string,
    readonly limit: number,
  ) {
    super(`All ${limit} slots of the repository are in use; the step waits for one.`);
    this.name = "SlotPoolFullError";
  }
}

export interface SlotRecord {
  id: string;
  repositoryId: string;
  planId: string;
  stepIndex: number;
  branch: string;
  path: string;
  baseCommit: string;
  headCommit: string | null;
}

/** The folder that holds one repository's slots. */
export function repositorySlotsRoot(slotsDir: string, repositoryId: string): string {
  return path.join(slotsDir, repositoryId);
}

/**
 * The slot of a plan step: resumed when its row exists, otherwise reserved within
 * the pool limit and created. Throws SlotPoolFullError when the pool is full, and
 * SlotsDiskFullError when a new slot is needed while the slots folder holds more
 * than `maxBytes` (a resumed slot is never refused: its disk is already spent).
 */
export async function acquireSlot(
  prisma: PrismaClient,
  input: {
    repositoryId: string;
    planId: string;
    stepIndex: number;
    base: SlotBase;
    slotsDir: string;
    limit: number;
    maxBytes?: number;
  },
): Promise<SlotRecord & { resumed: boolean }> {
  const repository = await prisma.repository.findUnique({ where: { id: input.repositoryId }, select: { id: true, path: true } });
  if (!repository) throw new Error(`repository ${input.repositoryId} is not registered`);
  if (input.maxBytes !== undefined) {
    // measured outside the lock (a walk of the disk); the bound is soft by the slots made meanwhile
    const current = await prisma.slot.findUnique({
      where: { planId_stepIndex: { planId: input.planId, stepIndex: input.stepIndex } },
      select: { status: true },
    });
    if (current?.status !== "active") {
      const used = await folderBytes(input.slotsDir, input.maxBytes);
      if (used > input.maxBytes) throw new SlotsDiskFullError(used, input.maxBytes);
    }
  }
  const stepId = String(input.stepIndex);
  const slotsRoot = repositorySlotsRoot(input.slotsDir, repository.id);

  const reserved = await prisma.$transaction(async (tx) => {
    // serialises reservations per repository, across processes
    await tx.$queryRaw`SELECT id FROM "Repository" WHERE id = ${repository.id} FOR UPDATE`;
    const existing = await tx.slot.findUnique({ where: { planId_stepIndex: { planId: input.planId, stepIndex: input.stepIndex } } });
    if (existing?.status === "active") return { row: existing, existed: true };
    const inUse = await countSlotsInUse(tx, repository.id, { planId: input.planId, stepIndex: input.stepIndex });
    if (inUse >= input.limit) throw new SlotPoolFullError(repository.id, input.limit);
    const data = {
      repositoryId: repository.id,
      branch: slotBranch({ planId: input.planId, stepId }),
      path: path.join(slotsRoot, slotFolderName({ planId: input.planId, stepId })),
      status: "active" as const,
      removedAt: null,
    };
    const row = existing
      ? await tx.slot.update({ where: { id: existing.id }, data })
      : await tx.slot.create({ data: { ...data, planId: input.planId, stepIndex: input.stepIndex } });
    return { row, existed: false };
  });

  let ensured: EnsuredSlot;
  try {
    ensured = await ensureSlot({ repoPath: repository.path, slotsRoot, planId: input.planId, stepId, base: input.base });
  } catch (error) {
    // a slot that could not be made (a conflict between upstream branches) gives its place back
    if (!reserved.existed && reserved.row.baseCommit === "") await prisma.slot.delete({ where: { id: reserved.row.id } });
    throw error;
  }
  const row = await prisma.slot.update({
    where: { id: reserved.row.id },
    data: { branch: ensured.branch, path: ensured.path, baseCommit: ensured.baseCommit, headCommit: ensured.headCommit },
  });
  return { ...toRecord(row), resumed: ensured.resumed };
}

function toRecord(row: SlotRecord): SlotRecord {
  const { id, repositoryId, planId, stepIndex, branch, path: slotPath, baseCommit, headCommit } = row;
  return { id, repositoryId, planId, stepIndex, branch, path: slotPath, baseCommit, headCommit };
}

/** Commit the step's changes in its slot and record the head. */
export async function commitStepSlot(
  prisma: PrismaClient,
  input: { slot: SlotRecord; runId: string; agentHandle: string; message: string },
): Promise<{ commit: string; created: boolean }> {
  const result = await commitSlot({
    slotPath: input.slot.path,
    planId: input.slot.planId,
    stepId: String(input.slot.stepIndex),
    runId: input.runId,
    agentHandle: input.agentHandle,
    message: input.message,
  });
  await prisma.slot.update({ where: { id: input.slot.id }, data: { headCommit: result.commit } });
  return result;
}

/** The active slot of a step, if it has one. */
export async function findStepSlot(prisma: PrismaClient, input: { planId: string; stepIndex: number }): Promise<SlotRecord | null> {
  const row = await prisma.slot.findUnique({ where: { planId_stepIndex: input } });
  return row?.status === "active" ? toRecord(row) : null;
}

type Db = Pick<PrismaClient, "slot" | "planStep">;

/**
 * How many of a repository's slots are in use: active ones whose step runs
 * (in_progress). A slot whose step ended, failed or waits keeps its worktree until
 * the plan ends but takes no place in the pool. `except` is the step asking.
 */
export async function countSlotsInUse(db: Db, repositoryId: string, except?: { planId: string; stepIndex: number }): Promise<number> {
  const active = await db.slot.findMany({
    where: { repositoryId, status: "active", ...(except ? { NOT: { planId: except.planId, stepIndex: except.stepIndex } } : {}) },
    select: { planId: true, stepIndex: true },
  });
  if (active.length === 0) return 0;
  return db.planStep.count({
    where: { status: "in_progress", OR: active.map((slot) => ({ planId: slot.planId, index: slot.stepIndex })) },
  });
}

/** A slot taken again after its plan ended (a reaction) is left to its run this long before the sweep removes it. */
export const REACTION_SLOT_GRACE_MS = 3_600_000;

/**
 * Remove the worktrees of ended plans (their branches stay, so results can still be
 * merged, and a reaction makes the worktree again from the branch). A slot taken
 * again after its plan ended belongs to a reaction's run: it is left alone while in
 * `inUse` (this process's runs) or younger than REACTION_SLOT_GRACE_MS (another
 * process's), its own run removes it when it ends.
 */
export async function removeEndedSlots(
  prisma: PrismaClient,
  input: { slotsDir: string; now: Date; inUse?: ReadonlySet<string>; planId?: string },
): Promise<number> {
  const slots = await prisma.slot.findMany({
    where: { status: "active", ...(input.planId ? { planId: input.planId } : {}) },
    include: { repository: { select: { path: true } } },
  });
  if (slots.length === 0) return 0;
  const ended = await prisma.plan.findMany({
    where: { id: { in: [...new Set(slots.map((slot) => slot.planId))] }, endedAt: { not: null } },
    select: { id: true, endedAt: true },
  });
  const endedAt = new Map(ended.map((plan) => [plan.id, plan.endedAt!]));
  let removed = 0;
  for (const slot of slots) {
    const end = endedAt.get(slot.planId);
    if (!end || input.inUse?.has(slot.id)) continue;
    const takenAfterEnd = slot.updatedAt > end;
    if (takenAfterEnd && input.now.getTime() - slot.updatedAt.getTime() < REACTION_SLOT_GRACE_MS) continue;
    await removeSlot({
      repoPath: slot.repository.path,
      slotsRoot: repositorySlotsRoot(input.slotsDir, slot.repositoryId),
      planId: slot.planId,
      stepId: String(slot.stepIndex),
      deleteBranch: false,
    });
    // only if nothing took the slot meanwhile (a reaction's run marks it active again with a later updatedAt)
    const marked = await prisma.slot.updateMany({
      where: { id: slot.id, status: "active", updatedAt: slot.updatedAt },
      data: { status: "removed", removedAt: input.now },
    });
    removed += marked.count;
  }
  return removed;
}

/** Remove one slot's worktree now (its run ended after its plan had): the branch stays. */
export async function releaseSlot(prisma: PrismaClient, input: { slot: SlotRecord; slotsDir: string; now: Date }): Promise<void> {
  const repository = await prisma.repository.findUniqueOrThrow({ where: { id: input.slot.repositoryId }, select: { path: true } });
  await removeSlot({
    repoPath: repository.path,
    slotsRoot: repositorySlotsRoot(input.slotsDir, input.slot.repositoryId),
    planId: input.slot.planId,
    stepId: String(input.slot.stepIndex),
    deleteBranch: false,
  });
  await prisma.slot.updateMany({ where: { id: input.slot.id, status: "active" }, data: { status: "removed", removedAt: input.now } });
}

/**
 * Delete the branches (and base refs) of plans that ended before `endedBefore` and
 * whose branches nobody merged (no result branch). A merged plan keeps its branches:
 * its result may still be accepted. Returns how many slots' branches went.
 */
export async function deleteUnmergedBranches(prisma: PrismaClient, input: { slotsDir: string; endedBefore: Date }): Promise<number> {
  const slots = await prisma.slot.findMany({
    where: { status: "removed" },
    include: { repository: { select: { path: true } } },
  });
  if (slots.length === 0) return 0;
  const ended = await prisma.plan.findMany({
    where: { id: { in: [...new Set(slots.map((slot) => slot.planId))] }, endedAt: { lt: input.endedBefore } },
    select: { id: true },
  });
  const old = new Set(ended.map((plan) => plan.id));
  const merged = new Map<string, boolean>();
  let deleted = 0;
  for (const slot of slots) {
    if (!old.has(slot.planId)) continue;
    const key = `${slot.repositoryId}:${slot.planId}`;
    if (!merged.has(key)) merged.set(key, (await resolveCommit(slot.repository.path, `refs/heads/${resultBranch(slot.planId)}`)) !== null);
    if (merged.get(key)) continue;
    await removeSlot({
      repoPath: slot.repository.path,
      slotsRoot: repositorySlotsRoot(input.slotsDir, slot.repositoryId),
      planId: slot.planId,
      stepId: String(slot.stepIndex),
      deleteBranch: true,
    });
    const marked = await prisma.slot.updateMany({ where: { id: slot.id, status: "removed" }, data: { status: "deleted" } });
    deleted += marked.count;
  }
  return deleted;
}
