/**
 * Running git: always through execFile (no shell, so no argument is ever parsed
 * twice), with a time limit, an output cap and an environment of its own — the
 * user's global and system git configuration, credential helpers and prompts are
 * all kept out, so a slot behaves the same on every server.
 */
import { execFile, type ExecFileException } from "node:child_process";

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
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    GIT_COMMITTER_NAME: BATON_COMMITTER.name,
    GIT_COMMITTER_EMAIL: BATON_COMMITTER.email,
    GIT_AUTHOR_NAME: BATON_COMMITTER.name,
    GIT_AUTHOR_EMAIL: BATON_COMMITTER.email,
    ...extra,
  };
}

/** Run one git command; rejects with GitError on a failure or a timeout. */
export function git(args: string[], options: GitOptions): Promise<GitResult> {
  const fullArgs = ["-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", ...args];
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      fullArgs,
      {
        cwd: options.cwd,
        env: gitEnvironment(options.env),
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
