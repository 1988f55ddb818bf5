/**
 * A local bare repository (or a checked-out one) in a temp folder, seeded with files on `main`, plus
 * helpers that read it back. Every slot test starts from one.
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { git } from "../git.ts";

export interface GitFixture {
  root: string;
  /** the repository slots are made from (bare unless `checkedOut`) */
  repoPath: string;
  /** where slot worktrees go */
  slotsRoot: string;
  /** the commit `main` starts at */
  initialCommit: string;
  cleanup(): Promise<void>;
}

/** `checkedOut`: the repository is a work tree with `main` checked out (a person's clone) instead of bare. */
export async function createGitFixture(files: Record<string, string>, { checkedOut = false } = {}): Promise<GitFixture> {
  const root = await mkdtemp(path.join(tmpdir(), "baton-slots-"));
  const seed = path.join(root, "seed");
  const repoPath = checkedOut ? seed : path.join(root, "repo.git");
  if (!checkedOut) await git(["init", "--quiet", "--bare", "--initial-branch=main", repoPath], { cwd: root });
  await git(["init", "--quiet", "--initial-branch=main", seed], { cwd: root });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(seed, name)), { recursive: true });
    await writeFile(path.join(seed, name), content);
  }
  await git(["add", "-A"], { cwd: seed });
  await git(["commit", "--quiet", "-m", "Initial commit"], { cwd: seed });
  if (!checkedOut) await git(["push", "--quiet", repoPath, "main"], { cwd: seed });
  const { stdout } = await git(["rev-parse", "main"], { cwd: repoPath });
  if (!checkedOut) await rm(seed, { recursive: true, force: true });
  return {
    root,
    repoPath,
    slotsRoot: path.join(root, "slots"),
    initialCommit: stdout.trim(),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Commits on a branch after a base, oldest first, as subject lines. */
export async function commitSubjects(repoPath: string, range: string): Promise<string[]> {
  const { stdout } = await git(["log", "--reverse", "--format=%s", range], { cwd: repoPath });
  return stdout.split("\n").filter(Boolean);
}

/** A file's content at a revision. */
export async function showFile(repoPath: string, revision: string, file: string): Promise<string> {
  const { stdout } = await git(["show", `${revision}:${file}`], { cwd: repoPath });
  return stdout;
}
