/**
 * What a person sees of a plan's code and does with it: each workspace step's change
 * (branch, commits, diff stats, the diff), the plan's branches and result branch, and
 * accepting the result — fast-forwarding the base branch or downloading a patch.
 *
 * Reading is for members of the plan's conversation. Fast-forwarding writes to the
 * repository's base branch, which the whole team shares, so it takes an owner of the
 * conversation (admins who are members act as owners); the patch is only read, so any
 * member may download it. Everything is read from git, by branch, so it holds after
 * the slot's worktree was removed by retention (branches are kept).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertOwner, assertPlanMember, type Actor } from "../auth/actor.ts";
import { conflict } from "../protocol/errors.ts";
import { git, isAncestor, resolveCommit } from "./git.ts";
import { planRepository } from "./merge.ts";
import { fastForwardBranch } from "./base-branch.ts";
import { recordAudit } from "../services/audit.ts";
import { resultBranch } from "./naming.ts";
import { diffStats, diffText, type DiffStats } from "./slots.ts";

/** The longest diff the drawer is sent (characters); past it the diff is cut and says so. */
export const MAX_REVIEW_DIFF_CHARS = 200_000;
/** The most commits listed for one step. */
const MAX_COMMITS = 50;

export interface CommitInfo {
  sha: string;
  subject: string;
  author: string;
  at: string;
}

export interface StepChange {
  branch: string;
  baseCommit: string;
  headCommit: string;
  commits: CommitInfo[];
  stats: DiffStats;
  diff: string;
}

async function commitsBetween(cwd: string, from: string, to: string): Promise<CommitInfo[]> {
  const { stdout } = await git(["log", `--max-count=${MAX_COMMITS}`, "--format=%H%x1f%s%x1f%an%x1f%aI%x1e", `${from}..${to}`], { cwd });
  return stdout
    .split("\x1e")
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [sha, subject, author, at] = record.split("\x1f");
      return { sha, subject, author, at };
    });
}

/** One step's change, or null when the step has no slot (not a workspace step, or not started). */
export async function getStepChange(
  prisma: PrismaClient,
  input: { actor: Actor | null; planId: string; stepIndex: number },
): Promise<{ change: StepChange | null }> {
  await assertPlanMember(prisma, input.actor, input.planId);
  const slot = await prisma.slot.findUnique({
    where: { planId_stepIndex: { planId: input.planId, stepIndex: input.stepIndex } },
    include: { repository: { select: { path: true } } },
  });
  if (!slot || !slot.baseCommit) return { change: null };
  const cwd = slot.repository.path;
  const head = (await resolveCommit(cwd, `refs/heads/${slot.branch}`)) ?? slot.headCommit ?? slot.baseCommit;
  const [commits, stats, diff] = await Promise.all([
    commitsBetween(cwd, slot.baseCommit, head),
    diffStats({ cwd, from: slot.baseCommit, to: head }),
    diffText({ cwd, from: slot.baseCommit, to: head, maxChars: MAX_REVIEW_DIFF_CHARS }),
  ]);
  return { change: { branch: slot.branch, baseCommit: slot.baseCommit, headCommit: head, commits, stats, diff } };
}

export interface PlanWorkspace {
  /** null: the plan has no workspace steps */
  baseBranch: string | null;
  branches: { stepIndex: number; branch: string; headCommit: string | null }[];
  /** the result branch, once the branches were merged */
  result: {
    branch: string;
    commit: string;
    /** the base branch already contains the result */
    accepted: boolean;
    /** the base branch can be fast-forwarded to the result (it has not moved since) */
    canFastForward: boolean;
  } | null;
  /** whether the actor may fast-forward the base branch */
  canAccept: boolean;
}

/** The plan's branches and its result branch, for the plan panel. */
export async function getPlanWorkspace(prisma: PrismaClient, input: { actor: Actor | null; planId: string }): Promise<PlanWorkspace> {
  const { conversationId } = await assertPlanMember(prisma, input.actor, input.planId);
  const { slots, repository, baseBranch } = await planRepository(prisma, input.planId, conversationId);
  const canAccept = await assertOwner(prisma, input.actor, conversationId).then(
    () => true,
    () => false,
  );
  if (!repository || !baseBranch) return { baseBranch: null, branches: [], result: null, canAccept };
  const branches = await Promise.all(
    slots.map(async (slot) => ({
      stepIndex: slot.stepIndex,
      branch: slot.branch,
      headCommit: (await resolveCommit(repository.path, `refs/heads/${slot.branch}`)) ?? slot.headCommit,
    })),
  );
  const branch = resultBranch(input.planId);
  const commit = await resolveCommit(repository.path, `refs/heads/${branch}`);
  if (!commit) return { baseBranch, branches, result: null, canAccept };
  const base = await resolveCommit(repository.path, `refs/heads/${baseBranch}`);
  const accepted = base !== null && (await isAncestor(repository.path, commit, base));
  const canFastForward = base !== null && !accepted && (await isAncestor(repository.path, base, commit));
  return { baseBranch, branches, result: { branch, commit, accepted, canFastForward }, canAccept };
}

async function requireResult(prisma: PrismaClient, planId: string, conversationId: string) {
  const { repository, baseBranch } = await planRepository(prisma, planId, conversationId);
  if (!repository || !baseBranch) throw conflict("This plan has no workspace branches.");
  const branch = resultBranch(planId);
  const commit = await resolveCommit(repository.path, `refs/heads/${branch}`);
  if (!commit) throw conflict("Merge the plan's branches first.");
  const base = await resolveCommit(repository.path, `refs/heads/${baseBranch}`);
  if (!base) throw conflict(`The base branch ${baseBranch} is gone.`);
  return { repoPath: repository.path, repositoryId: repository.id, repositoryName: repository.name, baseBranch, branch, commit, base };
}

/**
 * Fast-forward the base branch to the plan's result branch. Refused (409) when the
 * base branch moved since the merge (merge again), never a merge of its own: what
 * lands on the base branch is exactly what the person reviewed. A checked-out base
 * is updated in its work tree, or the accept refused when that work tree has
 * changes (base-branch.ts). Written to the audit log: who, which repository, from
 * which commit to which.
 */
export async function acceptPlanResult(
  prisma: PrismaClient,
  input: { actor: Actor | null; planId: string },
): Promise<{ baseBranch: string; from: string; to: string }> {
  const { conversationId } = await assertPlanMember(prisma, input.actor, input.planId);
  const actor = await assertOwner(prisma, input.actor, conversationId);
  const result = await requireResult(prisma, input.planId, conversationId);
  if (await isAncestor(result.repoPath, result.commit, result.base)) {
    return { baseBranch: result.baseBranch, from: result.base, to: result.base };
  }
  if (!(await isAncestor(result.repoPath, result.base, result.commit))) {
    throw conflict(`${result.baseBranch} moved since the merge: merge the branches again, then accept.`);
  }
  const { workTree } = await fastForwardBranch({
    repoPath: result.repoPath,
    branch: result.baseBranch,
    from: result.base,
    to: result.commit,
  });
  await recordAudit(prisma, {
    actor,
    action: "plan.accepted",
    conversationId,
    target: { kind: "repository", id: result.repositoryId },
    detail: {
      name: `${result.repositoryName}:${result.baseBranch}`,
      planId: input.planId,
      branch: result.baseBranch,
      from: result.base,
      to: result.commit,
      workTreeUpdated: workTree !== null,
    },
  });
  return { baseBranch: result.baseBranch, from: result.base, to: result.commit };
}

/** The plan's result as one patch against its merge base with the base branch (`git apply`-able, binary files included). */
export async function planPatch(
  prisma: PrismaClient,
  input: { actor: Actor | null; planId: string },
): Promise<{ fileName: string; text: string }> {
  const { conversationId } = await assertPlanMember(prisma, input.actor, input.planId);
  const result = await requireResult(prisma, input.planId, conversationId);
  const mergeBase = (await git(["merge-base", result.base, result.commit], { cwd: result.repoPath })).stdout.trim();
  const { stdout } = await git(["diff", "--binary", "--no-color", "--no-ext-diff", mergeBase, result.commit], { cwd: result.repoPath });
  return { fileName: `baton-${input.planId}.patch`, text: stdout };
}
