/**
 * Running git: always through execFile (no shell, so no argument is ever parsed
 * twice), with a time limit, an output cap and an environment of its own — the
 * user's global and system git configuration, credential helpers and prompts are
 * all kept out, so a slot behaves the same on every server. Baton's own git never
 * obeys a slot: the git dir and work tree are set explicitly (a worktree's `.git`
 * is checked against the repository's record of it), and hooks, fsmonitor and
 * the like are switched off on the command line, where no file can switch them on.
 */
import { execFile, type ExecFileException } from "node:child_process";
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";

/** How long one git command may take before it is killed. */
export const DEFAULT_GIT_TIMEOUT_MS = 60_000;
/** Largest stdout a git command may produce (diffs of big changes included). */
export const MAX_GIT_OUTPUT_BYTES = 32 * 1024 * 1024;

/** The identity git records for commits the executor makes (authorship is in trailers). */
export const BATON_COMMITTER = { name: "Baton executor", email: "executor@baton.invalid" } as const;

export class GitError extends Error {
  readonly code = "git-failed";
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly timedOut: boolean,
  ) {
    super(
      timedOut
        ? `git ${args[0]} timed out`
        : `git ${args.join(" ")} failed (exit ${exitCode ?? "signal"}): ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
    );
    this.name = "GitError";
  }
}

export interface GitOptions {
  cwd: string;
  timeoutMs?: number;
  /** extra environment, e.g. author identity for one commit */
  env?: Record<string, string>;
  /** exit codes that are answers, not failures (`merge-tree` exits 1 on a conflict) */
  okExitCodes?: number[];
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * A slot's `.git` no longer points where Baton made it: a command in the slot
 * rewrote it (to a git dir of its own, with hooks, fsmonitor or filters). Baton
 * runs no git there; the step fails with this reason.
 */
export class SlotGitTamperedError extends Error {
  readonly code = "slot-git-tampered";
  constructor(
    readonly workTree: string,
    readonly reason: string,
  ) {
    super(
      `refusing to run git in ${workTree}: its .git ${reason}. Something in the worktree rewrote it; Baton does not use a git directory the worktree chose.`,
    );
    this.name = "SlotGitTamperedError";
  }
}

/**
 * The git dir of a linked worktree (a slot), checked from both ends: the `.git`
 * file names a folder outside the worktree, and that folder's `gitdir` file (which
 * lives in the repository, out of the slot's reach) names this worktree back.
 * Throws SlotGitTamperedError when either does not hold.
 */
export function worktreeGitDir(workTree: string): string {
  const root = realpathSync(workTree);
  const link = path.join(root, ".git");
  const info = lstatSync(link, { throwIfNoEntry: false });
  if (!info) throw new SlotGitTamperedError(workTree, "is missing");
  if (!info.isFile())
    throw new SlotGitTamperedError(workTree, info.isDirectory() ? "is a folder, not the file Baton made" : "is not a file");
  const match = /^gitdir: (.+)\n?$/.exec(readFileSync(link, "utf8"));
  if (!match) throw new SlotGitTamperedError(workTree, "file does not hold a gitdir line");
  let gitDir: string;
  try {
    gitDir = realpathSync(path.resolve(root, match[1]));
  } catch {
    throw new SlotGitTamperedError(workTree, `names a git dir that does not exist (${match[1]})`);
  }
  if (gitDir === root || gitDir.startsWith(`${root}${path.sep}`))
    throw new SlotGitTamperedError(workTree, "names a git dir inside the worktree");
  let back: string;
  try {
    back = readFileSync(path.join(gitDir, "gitdir"), "utf8").trim();
  } catch {
    throw new SlotGitTamperedError(workTree, `names ${gitDir}, which is not a worktree's git dir`);
  }
  let backRoot: string | null;
  try {
    backRoot = path.basename(back) === ".git" ? realpathSync(path.dirname(back)) : null;
  } catch {
    backRoot = null;
  }
  if (backRoot !== root) throw new SlotGitTamperedError(workTree, `names ${gitDir}, which belongs to another worktree`);
  return gitDir;
}

/**
 * Where git looks for a command run in `cwd`, fixed by Baton rather than found by
 * git: a linked worktree (a slot) gets its checked git dir; any other folder (a
 * repository Baton registered) gets its own `.git`, or none for a bare one.
 */
export function gitLocation(cwd: string): Record<string, string> {
  const info = lstatSync(path.join(cwd, ".git"), { throwIfNoEntry: false });
  if (info?.isFile()) return { GIT_DIR: worktreeGitDir(cwd), GIT_WORK_TREE: realpathSync(cwd) };
  if (info?.isDirectory()) return { GIT_DIR: path.join(realpathSync(cwd), ".git"), GIT_WORK_TREE: realpathSync(cwd) };
  return {};
}

/** The environment every git command gets: nothing inherited but PATH. */
export function gitEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    // typed as the process environment (which Next declares with NODE_ENV), never inherited from it
    NODE_ENV: "production",
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    GIT_COMMITTER_NAME: BATON_COMMITTER.name,
    GIT_COMMITTER_EMAIL: BATON_COMMITTER.email,
    GIT_AUTHOR_NAME: BATON_COMMITTER.name,
    GIT_AUTHOR_EMAIL: BATON_COMMITTER.email,
    ...extra,
  };
}

/**
 * Settings that the repository's files cannot turn back on: no hooks, no fsmonitor
 * program, no signing program.
 */
const SAFE_CONFIG = [
  "commit.gpgsign=false",
  "tag.gpgsign=false",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
] as const;

/**
 * Run one git command; rejects with GitError on a failure or a timeout, and with
 * SlotGitTamperedError (before running anything) when `cwd` is a worktree whose
 * `.git` no longer points where Baton made it.
 */
export function git(args: string[], options: GitOptions): Promise<GitResult> {
  const fullArgs = [...SAFE_CONFIG.flatMap((setting) => ["-c", setting]), ...args];
  let location: Record<string, string>;
  try {
    location = gitLocation(options.cwd);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      fullArgs,
      {
        cwd: options.cwd,
        env: gitEnvironment({ ...options.env, ...location }),
        timeout: options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
        killSignal: "SIGKILL",
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        encoding: "utf8",
      },
      (error: ExecFileException | null, stdout: string, stderr: string) => {
        if (!error) return resolve({ stdout, stderr, exitCode: 0 });
        const exitCode = typeof error.code === "number" ? error.code : null;
        if (exitCode !== null && (options.okExitCodes ?? []).includes(exitCode)) {
          return resolve({ stdout, stderr, exitCode });
        }
        reject(new GitError(args, exitCode, stderr, error.killed === true && error.signal === "SIGKILL"));
      },
    );
  });
}

/** The commit a revision names, or null when it names none. */
export async function resolveCommit(cwd: string, revision: string): Promise<string | null> {
  const result = await git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`], { cwd, okExitCodes: [1] });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/** Whether `ancestor` is `of` or one of its ancestors. */
export async function isAncestor(cwd: string, ancestor: string, of: string): Promise<boolean> {
  const result = await git(["merge-base", "--is-ancestor", ancestor, of], { cwd, okExitCodes: [1] });
  return result.exitCode === 0;
}
