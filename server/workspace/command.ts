/**
 * Running a command in a slot: only what the agent's allow-list names, as an
 * argument vector (no shell), with a time limit, an output cap and a minimal
 * environment (nothing of the server's, so no secrets). Where bubblewrap is
 * installed the command runs in a sandbox with the network off, the slot the
 * only writable folder besides a private /tmp.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { truncateText } from "../core/text.ts";

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const DEFAULT_COMMAND_OUTPUT_CHARS = 20_000;

export class CommandNotAllowedError extends Error {
  readonly code = "command-not-allowed";
  constructor(command: string[], allowed: string[]) {
    super(
      `Command "${command.join(" ")}" is not in your allow-list. Allowed: ${allowed.length > 0 ? allowed.map((entry) => `"${entry}"`).join(", ") : "(none)"}.`,
    );
    this.name = "CommandNotAllowedError";
  }
}

/**
 * Whether an allow-list permits a command: some entry's words are the command's
 * first words, exactly (`npm test` allows `npm test -- a.test.ts`, not `npm install`).
 */
export function isCommandAllowed(command: string[], allowed: string[]): boolean {
  if (command.length === 0 || command[0] === "") return false;
  return allowed.some((entry) => {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    return words.length > 0 && words.length <= command.length && words.every((word, index) => command[index] === word);
  });
}

/** The environment a command gets: a PATH, a private HOME and TMPDIR, and nothing else. */
export function commandEnvironment(home: string): NodeJS.ProcessEnv {
  return {
    NODE_ENV: "test",
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    TMPDIR: home,
    LANG: "C.UTF-8",
    CI: "1",
    NO_COLOR: "1",
  };
}

/** The bubblewrap wrapper: read-only system, writable slot, private /tmp, no network. */
export function sandboxArgv(input: { bwrap: string; slotPath: string; home: string; command: string[] }): string[] {
  return [
    input.bwrap,
    "--die-with-parent",
    "--unshare-net",
    "--unshare-pid",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--bind",
    input.slotPath,
    input.slotPath,
    "--bind",
    input.home,
    input.home,
    "--chdir",
    input.slotPath,
    "--",
    ...input.command,
  ];
}

let bwrapPath: string | null | undefined;

/** Where `bwrap` is on the server's PATH (what `which bwrap` finds), or null. */
export function findBubblewrap(): string | null {
  if (bwrapPath !== undefined) return bwrapPath;
  bwrapPath = null;
  for (const folder of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!folder) continue;
    try {
      accessSync(path.join(folder, "bwrap"), constants.X_OK);
      bwrapPath = path.join(folder, "bwrap");
      break;
    } catch {
      // not in this folder
    }
  }
  return bwrapPath;
}

export interface CommandResult {
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  sandboxed: boolean;
  /** stdout and stderr as they interleaved, capped */
  output: string;
}

export interface RunCommandInput {
  slotPath: string;
  command: string[];
  allowed: string[];
  timeoutMs?: number;
  maxOutputChars?: number;
  /** null: never sandbox; undefined: use bwrap when found */
  bwrap?: string | null;
}

export async function runCommand(input: RunCommandInput): Promise<CommandResult> {
  if (!isCommandAllowed(input.command, input.allowed)) throw new CommandNotAllowedError(input.command, input.allowed);
  const maxChars = input.maxOutputChars ?? DEFAULT_COMMAND_OUTPUT_CHARS;
  const bwrap = input.bwrap === undefined ? findBubblewrap() : input.bwrap;
  const home = await mkdtemp(path.join(tmpdir(), "baton-cmd-"));
  const argv = bwrap ? sandboxArgv({ bwrap, slotPath: input.slotPath, home, command: input.command }) : input.command;
  try {
    return await new Promise<CommandResult>((resolve) => {
      let output = "";
      let truncated = false;
      let timedOut = false;
      const child = spawn(argv[0], argv.slice(1), {
        cwd: input.slotPath,
        env: commandEnvironment(home),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      const collect = (chunk: Buffer) => {
        if (truncated) return;
        output += chunk.toString("utf8");
        if (output.length > maxChars) {
          output = truncateText(output, maxChars);
          truncated = true;
        }
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, input.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
      child.on("error", (error) => {
        clearTimeout(timer);
        resolve({ exitCode: null, timedOut, truncated, sandboxed: bwrap !== null, output: `${output}${error.message}` });
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        killGroup();
        resolve({ exitCode: code, timedOut, truncated, sandboxed: bwrap !== null, output });
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
