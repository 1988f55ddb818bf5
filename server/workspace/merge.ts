/**
 * Merging a plan's branches into its result branch (`baton/<plan>-result`), for a
 * member of the plan's conversation, once the plan has ended (a running plan's
 * branches still move). A conflict changes nothing and is reported as files and
 * hunks; a clean merge points the result branch at the merge commit.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertPlanMember, type Actor } from "../auth/actor.ts";
import { conflict, invalidInput } from "../protocol/errors.ts";
import type { FileConflict } from "./conflicts.ts";
import { git } from "./git.ts";
import { resultBranch } from "./naming.ts";
import { diffStats, mergeCommits, setBranch, type DiffStats } from "./slots.ts";

export type PlanMergeResult =
  | { ok: true; branch: string; commit: string; merged: string[]; stats: DiffStats }
  | { ok: false; branch: string; conflicts: FileConflict[] };

/**
 * A plan's slots (by step), their repository and the base branch the plan works
 * against: the conversation's choice, else the repository's. No repository: no slots.
 */
export async function planRepository(prisma: PrismaClient, planId: string, conversationId: string) {
  const [conversation, slots] = await Promise.all([
    prisma.conversation.findUnique({ where: { id: conversationId }, select: { repositoryBaseBranch: true } }),
    prisma.slot.findMany({
      where: { planId },
      orderBy: { stepIndex: "asc" },
      include: { repository: { select: { id: true, name: true, path: true, baseBranch: true } } },
    }),
  ]);
  const repository = slots[0]?.repository ?? null;
  const baseBranch = repository ? (conversation?.repositoryBaseBranch ?? repository.baseBranch) : null;
  return { slots, repository, baseBranch };
}

export async function mergePlanBranches(prisma: PrismaClient, input: { actor: Actor | null; planId: string }): Promise<PlanMergeResult> {
  const { conversationId } = await assertPlanMember(prisma, input.actor, input.planId);
  const plan = await prisma.plan.findUniqueOrThrow({ where: { id: input.planId }, select: { endedAt: true, status: true } });
  if (!plan.endedAt) throw conflict(`The plan is still ${plan.status}: merge its branches once it has ended.`);
  const { slots, repository, baseBranch } = await planRepository(prisma, input.planId, conversationId);
  if (!repository || !baseBranch) throw invalidInput("this plan has no workspace branches to merge");
  if (slots.some((slot) => slot.status === "deleted")) throw conflict("The plan's branches were deleted after the retention period.");
  if (slots.some((slot) => slot.repositoryId !== repository.id)) throw invalidInput("the plan's branches are in different repositories");
  const base = `refs/heads/${baseBranch}`;
  const branches = slots.map((slot) => slot.branch);
  const branch = resultBranch(input.planId);
  const merged = await mergeCommits({
    repoPath: repository.path,
    commits: branches.map((name) => `refs/heads/${name}`),
    message: `Merge the branches of plan ${input.planId}\n\n${branches.join("\n")}`,
  });
  if (!merged.ok) return { ok: false, branch, conflicts: merged.conflicts };
  await setBranch({ repoPath: repository.path, branch, commit: merged.commit });
  const mergeBase = await git(["merge-base", base, merged.commit], { cwd: repository.path });
  const stats = await diffStats({ cwd: repository.path, from: mergeBase.stdout.trim(), to: merged.commit });
  return { ok: true, branch, commit: merged.commit, merged: branches, stats };
}
