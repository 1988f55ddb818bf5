/**
 * Git slots: one worktree and branch per step. Pure I/O — the executor decides
 * when, this module only does it, idempotently:
 *
 * - ensureSlot creates the slot, or resumes it when the branch or worktree is
 *   already there (after a restart or a takeover), never recreating a branch;
 * - commitSlot commits whatever the step changed, with the step named in trailers,
 *   and commits nothing twice for one run;
 * - mergeCommits merges branches with `git merge-tree` (no worktree, no checkout),
 *   reporting a conflict as files and hunks;
 * - removeSlot removes the worktree (and, when asked, its branch).
 *
 * The base commit of a slot is kept in git itself (`refs/baton/base/<plan>-<step>`),
 * written before the branch, so a resumed slot knows what its change is against.
 */
import { existsSync } from "node:fs";
import { realpath, rm } from "node:fs/promises";
import path from "node:path";
import { git, isAncestor, resolveCommit } from "./git.ts";
import { ensurePrivateDir } from "../db/private-files.ts";
import { commitTrailers, slotBranch, slotFolderName } from "./naming.ts";
import { parseConflictHunks, parseMergeTreeOutput, type FileConflict } from "./conflicts.ts";
import { truncateText } from "../core/text.ts";

export interface SlotRef {
  branch: string;
  path: string;
  baseCommit: string;
  headCommit: string;
}

export interface EnsuredSlot extends SlotRef {
  /** the branch already existed: this is a resume, not a creation */
  resumed: boolean;
}

/** Where a new slot starts: a commit (or branch), or the merge of upstream slots' branches. */
export type SlotBase = { commit: string } | { mergeOf: string[]; fallback: string };

export class MergeConflictError extends Error {
  readonly code = "merge-conflict";
  constructor(readonly conflicts: FileConflict[]) {
    super(`Merge conflict in ${conflicts.map((conflict) => conflict.path).join(", ")}`);
    this.name = "MergeConflictError";
  }
}

export class SlotError extends Error {
  readonly code = "slot-error";
  constructor(message: string) {
    super(message);
    this.name = "SlotError";
  }
}

function baseRef(input: { planId: string; stepId: string }): string {
  return `refs/baton/base/${slotFolderName(input)}`;
}

export interface WorktreeEntry {
  path: string;
  branch?: string;
}

export async function listWorktrees(repoPath: string): Promise<WorktreeEntry[]> {
  const { stdout } = await git(["worktree", "list", "--porcelain", "-z"], { cwd: repoPath });
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of stdout.split("\0")) {
    if (field.startsWith("worktree ")) {
      current = { path: field.slice("worktree ".length) };
      entries.push(current);
    } else if (current && field.startsWith("branch ")) {
      current.branch = field.slice("branch ".length).replace(/^refs\/heads\//, "");
    }
  }
  return entries;
}

async function samePath(a: string, b: string): Promise<boolean> {
  if (!existsSync(a) || !existsSync(b)) return path.resolve(a) === path.resolve(b);
  return (await realpath(a)) === (await realpath(b));
}

/**
 * Merge commits into one, in order, with `merge-tree` (nothing is checked out).
 * Commits already contained in the result are skipped; a conflict stops the merge
 * and names every conflicted file with its hunks.
 */
export async function mergeCommits(input: {
  repoPath: string;
  commits: string[];
  message: string;
}): Promise<{ ok: true; commit: string } | { ok: false; conflicts: FileConflict[] }> {
  const { repoPath } = input;
  if (input.commits.length === 0) throw new SlotError("nothing to merge");
  const resolved: string[] = [];
  for (const revision of input.commits) {
    const commit = await resolveCommit(repoPath, revision);
    if (!commit) throw new SlotError(`unknown branch or commit "${revision}"`);
    resolved.push(commit);
  }
  let result = resolved[0];
  for (const next of resolved.slice(1)) {
    if (await isAncestor(repoPath, next, result)) continue;
    if (await isAncestor(repoPath, result, next)) {
      result = next;
      continue;
    }
    const merged = await git(["merge-tree", "--write-tree", "--name-only", "-z", result, next], { cwd: repoPath, okExitCodes: [1] });
    const { tree, conflicted } = parseMergeTreeOutput(merged.stdout);
    if (merged.exitCode === 1) {
      const conflicts: FileConflict[] = [];
      for (const file of conflicted) {
        const blob = await git(["cat-file", "-p", `${tree}:${file}`], { cwd: repoPath, okExitCodes: [128] });
        conflicts.push({ path: file, hunks: blob.exitCode === 0 ? parseConflictHunks(blob.stdout) : [] });
      }
      return { ok: false, conflicts };
    }
    const commit = await git(["commit-tree", tree, "-p", result, "-p", next, "-m", input.message], { cwd: repoPath });
    result = commit.stdout.trim();
  }
  return { ok: true, commit: result };
}

async function resolveBase(repoPath: string, base: SlotBase, label: string): Promise<string> {
  if ("commit" in base) {
    const commit = await resolveCommit(repoPath, base.commit);
    if (!commit) throw new SlotError(`unknown base "${base.commit}"`);
    return commit;
  }
  if (base.mergeOf.length === 0) return resolveBase(repoPath, { commit: base.fallback }, label);
  const merged = await mergeCommits({ repoPath, commits: base.mergeOf, message: `Merge upstream branches for ${label}` });
  if (!merged.ok) throw new MergeConflictError(merged.conflicts);
  return merged.commit;
}

/**
 * The slot of one step, created or resumed. Safe to call again at any point of a
 * crash: the base ref is written first, then the branch, then the worktree.
 */
export async function ensureSlot(input: {
  repoPath: string;
  slotsRoot: string;
  planId: string;
  stepId: string;
  base: SlotBase;
}): Promise<EnsuredSlot> {
  const { repoPath } = input;
  const branch = slotBranch(input);
  const slotPath = path.join(input.slotsRoot, slotFolderName(input));
  const ref = baseRef(input);

  const registered = (await listWorktrees(repoPath)).find((entry) => entry.branch === branch);
  if (registered && existsSync(registered.path)) {
    if (!(await samePath(registered.path, slotPath))) {
      throw new SlotError(`branch ${branch} is checked out elsewhere (${registered.path})`);
    }
    return describe({ repoPath, branch, slotPath, ref, resumed: true });
  }
  // a worktree whose folder is gone (wiped disk, crash mid-add) is forgotten; its branch is kept
  await git(["worktree", "prune"], { cwd: repoPath });
  if (existsSync(slotPath)) await rm(slotPath, { recursive: true, force: true });
  // checked-out code and what agents wrote: private to the server's user, wherever BATON_SLOTS_DIR points
  await ensurePrivateDir(input.slotsRoot);

  const branchHead = await resolveCommit(repoPath, `refs/heads/${branch}`);
  if (branchHead) {
    await git(["worktree", "add", slotPath, branch], { cwd: repoPath });
    if (!(await resolveCommit(repoPath, ref))) await git(["update-ref", ref, branchHead], { cwd: repoPath });
    return describe({ repoPath, branch, slotPath, ref, resumed: true });
  }
  const baseCommit = (await resolveCommit(repoPath, ref)) ?? (await resolveBase(repoPath, input.base, branch));
  await git(["update-ref", ref, baseCommit], { cwd: repoPath });
  await git(["worktree", "add", "-b", branch, slotPath, baseCommit], { cwd: repoPath });
  return describe({ repoPath, branch, slotPath, ref, resumed: false });
}

async function describe(input: {
  repoPath: string;
  branch: string;
  slotPath: string;
  ref: string;
  resumed: boolean;
}): Promise<EnsuredSlot> {
  const headCommit = await resolveCommit(input.slotPath, "HEAD");
  const baseCommit = await resolveCommit(input.repoPath, input.ref);
  if (!headCommit || !baseCommit) throw new SlotError(`slot ${input.branch} has no head or base`);
  return { branch: input.branch, path: input.slotPath, baseCommit, headCommit, resumed: input.resumed };
}

/**
 * Commit everything the step changed in its slot. Returns the new commit, or the
 * current head when there was nothing to commit; a second call for the same run
 * (after a crash between committing and recording it) commits nothing.
 */
export async function commitSlot(input: {
  slotPath: string;
  planId: string;
  stepId: string;
  runId: string;
  agentHandle: string;
  message: string;
}): Promise<{ commit: string; created: boolean }> {
  const cwd = input.slotPath;
  await git(["add", "-A"], { cwd });
  const staged = await git(["diff", "--cached", "--quiet"], { cwd, okExitCodes: [1] });
  if (staged.exitCode === 0) {
    const head = await resolveCommit(cwd, "HEAD");
    if (!head) throw new SlotError(`slot ${cwd} has no head`);
    return { commit: head, created: false };
  }
  const trailers = commitTrailers(input).join("\n");
  await git(["commit", "--no-verify", "-m", input.message, "-m", trailers], {
    cwd,
    env: { GIT_AUTHOR_NAME: `@${input.agentHandle} (Baton step ${input.stepId})`, GIT_AUTHOR_EMAIL: "agent@baton.invalid" },
  });
  const head = await resolveCommit(cwd, "HEAD");
  return { commit: head!, created: true };
}

export interface ChangedFile {
  path: string;
  /** A added, M modified, D deleted, T type changed */
  status: string;
  added: number;
  deleted: number;
  binary: boolean;
}

export interface DiffStats {
  files: ChangedFile[];
  added: number;
  deleted: number;
}

/** Files changed between two commits, with line counts. */
export async function diffStats(input: { cwd: string; from: string; to: string }): Promise<DiffStats> {
  const range = [input.from, input.to];
  const [numstat, names] = await Promise.all([
    git(["diff", "--no-renames", "--numstat", "-z", ...range], { cwd: input.cwd }),
    git(["diff", "--no-renames", "--name-status", "-z", ...range], { cwd: input.cwd }),
  ]);
  const statuses = new Map<string, string>();
  const nameFields = names.stdout.split("\0");
  for (let index = 0; index + 1 < nameFields.length; index += 2) statuses.set(nameFields[index + 1], nameFields[index]);
  const files: ChangedFile[] = [];
  for (const record of numstat.stdout.split("\0")) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (!match) continue;
    const binary = match[1] === "-";
    files.push({
      path: match[3],
      status: statuses.get(match[3]) ?? "M",
      added: binary ? 0 : Number(match[1]),
      deleted: binary ? 0 : Number(match[2]),
      binary,
    });
  }
  return {
    files,
    added: files.reduce((sum, file) => sum + file.added, 0),
    deleted: files.reduce((sum, file) => sum + file.deleted, 0),
  };
}

/** The unified diff between two revisions (or of the working tree against one), capped. */
export async function diffText(input: { cwd: string; from: string; to?: string; maxChars: number }): Promise<string> {
  const args = ["diff", "--no-color", "--no-ext-diff", input.from];
  if (input.to) args.push(input.to);
  const { stdout } = await git(args, { cwd: input.cwd });
  return stdout.length > input.maxChars
    ? `${truncateText(stdout, input.maxChars)}\n… (diff truncated, ${stdout.length} chars in all)`
    : stdout;
}

/** Point a branch (e.g. a plan's result branch) at a commit. */
export async function setBranch(input: { repoPath: string; branch: string; commit: string }): Promise<void> {
  await git(["branch", "-f", input.branch, input.commit], { cwd: input.repoPath });
}

/** Remove a slot's worktree; with deleteBranch, its branch and base ref too. Idempotent. */
export async function removeSlot(input: {
  repoPath: string;
  slotsRoot: string;
  planId: string;
  stepId: string;
  deleteBranch: boolean;
}): Promise<void> {
  const { repoPath } = input;
  const slotPath = path.join(input.slotsRoot, slotFolderName(input));
  if (existsSync(slotPath)) {
    await git(["worktree", "remove", "--force", slotPath], { cwd: repoPath, okExitCodes: [128] });
    await rm(slotPath, { recursive: true, force: true });
  }
  await git(["worktree", "prune"], { cwd: repoPath });
  if (!input.deleteBranch) return;
  const branch = slotBranch(input);
  if (await resolveCommit(repoPath, `refs/heads/${branch}`)) await git(["branch", "-D", branch], { cwd: repoPath });
  await git(["update-ref", "-d", baseRef(input)], { cwd: repoPath });
}
