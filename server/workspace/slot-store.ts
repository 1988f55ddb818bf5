/**
 * Durable slots: the Slot row is executor state like a run. A slot is reserved
 * (a row, counted in the repository's pool) under a lock on the repository row,
 * then its worktree is made or resumed (slots.ts, idempotent), then the row gets
 * its commits. A process that restarts or takes the step over finds the row and
 * resumes the same branch; nothing is recreated.
 */
import path from "node:path";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { slotBranch, slotFolderName } from "./naming.ts";
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
    const active = await tx.slot.count({ where: { repositoryId: repository.id, status: "active" } });
    if (active >= input.limit) throw new SlotPoolFullError(repository.id, input.limit);
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

/**
 * Remove the worktrees of plans that ended before `endedBefore` (their branches stay,
 * so results can still be merged or downloaded); frees their places in the pool.
 */
export async function removeEndedSlots(prisma: PrismaClient, input: { slotsDir: string; endedBefore: Date; now: Date }): Promise<number> {
  const ended = await prisma.plan.findMany({
    where: { endedAt: { lt: input.endedBefore } },
    select: { id: true },
  });
  if (ended.length === 0) return 0;
  const slots = await prisma.slot.findMany({
    where: { status: "active", planId: { in: ended.map((plan) => plan.id) } },
    include: { repository: { select: { path: true } } },
  });
  for (const slot of slots) {
    await removeSlot({
      repoPath: slot.repository.path,
      slotsRoot: repositorySlotsRoot(input.slotsDir, slot.repositoryId),
      planId: slot.planId,
      stepId: String(slot.stepIndex),
      deleteBranch: false,
    });
    await prisma.slot.update({ where: { id: slot.id }, data: { status: "removed", removedAt: input.now } });
  }
  return slots.length;
}
