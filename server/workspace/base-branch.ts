/**
 * Moving a repository's base branch to a plan's result without leaving anything
 * inconsistent. A bare repository (or one whose base branch is checked out nowhere)
 * just gets its ref moved, compare-and-swap. When the base branch is checked out in
 * a work tree, moving the ref alone would leave that work tree showing the agents'
 * changes as staged reverts, so the work tree is fast-forwarded itself when it is
 * clean (`git merge --ff-only`, no hooks, no fsmonitor) and the accept is refused,
 * naming the changed files, when it is not.
 */
import { BatonError } from "../protocol/errors.ts";
import { git, GitError, resolveCommit } from "./git.ts";
import { listWorktrees } from "./slots.ts";

/** How many changed files a refusal names. */
const FILES_NAMED = 5;

/** git options that keep a person's work tree from running anything of its own while Baton updates it. */
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

/** The base branch is checked out in a work tree with uncommitted changes: nothing was moved. The message names the files, not the server path. */
export class BaseCheckoutDirtyError extends BatonError {
  constructor(
    readonly workTree: string,
    readonly files: string[],
  ) {
    const named = files.slice(0, FILES_NAMED).join(", ");
    const more = files.length > FILES_NAMED ? ` and ${files.length - FILES_NAMED} more` : "";
    super(
      "conflict",
      `The base branch is checked out in the repository's work tree on the server, with uncommitted changes ` +
        `(${named}${more}): commit or stash them there, then accept again. Nothing was changed.`,
    );
    this.name = "BaseCheckoutDirtyError";
  }
}

/** Files with uncommitted changes to tracked files in a work tree (untracked files are not counted). */
async function changedFiles(workTree: string): Promise<string[]> {
  const { stdout } = await git([...NO_HOOKS, "status", "--porcelain=v1", "-z", "--untracked-files=no"], { cwd: workTree });
  const files: string[] = [];
  const fields = stdout.split("\0");
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index];
    if (field.length < 4) continue;
    files.push(field.slice(3));
    // a rename or copy is followed by its source path
    if (field[0] === "R" || field[0] === "C") index++;
  }
  return files;
}

/** Where the branch is checked out, or null (bare, or checked out nowhere). */
export async function checkedOutIn(repoPath: string, branch: string): Promise<string | null> {
  const entry = (await listWorktrees(repoPath)).find((worktree) => worktree.branch === branch);
  return entry?.path ?? null;
}

/**
 * Move `branch` from `from` to `to` (a fast-forward; the caller checked that `from`
 * is an ancestor of `to`). Throws BaseCheckoutDirtyError, or a conflict when the
 * branch moved meanwhile or git could not update the work tree; on any throw the
 * branch and the work tree are as they were.
 */
export async function fastForwardBranch(input: {
  repoPath: string;
  branch: string;
  from: string;
  to: string;
}): Promise<{ workTree: string | null }> {
  const { repoPath, branch } = input;
  const moved = () => new BatonError("conflict", `${branch} moved just now: merge the branches again, then accept.`);
  const workTree = await checkedOutIn(repoPath, branch);
  if (workTree === null) {
    // compare-and-swap: a push to the branch in between makes this fail instead of losing it
    const swapped = await git(["update-ref", `refs/heads/${branch}`, input.to, input.from], { cwd: repoPath, okExitCodes: [128] });
    if (swapped.exitCode !== 0) throw moved();
    return { workTree: null };
  }
  const dirty = await changedFiles(workTree);
  if (dirty.length > 0) throw new BaseCheckoutDirtyError(workTree, dirty);
  if ((await resolveCommit(workTree, "HEAD")) !== input.from) throw moved();
  try {
    await git([...NO_HOOKS, "merge", "--ff-only", "--no-edit", "--quiet", input.to], { cwd: workTree });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    // git checks before it writes: a refused fast-forward (untracked files in the way) changed nothing
    throw new BatonError(
      "conflict",
      `git could not fast-forward the checked-out work tree of ${branch} (untracked files there may be in the way): nothing was changed.`,
    );
  }
  return { workTree };
}
