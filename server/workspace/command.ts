/**
 * Running a command in a slot: only what the agent's allow-list names, as an
 * argument vector (no shell), with a time limit, an output cap and a minimal
 * environment (nothing of the server's, so no secrets), always in the sandbox
 * (sandbox.ts): the network off, the slot the only folder it sees besides the
 * toolchain, a private /tmp. No sandbox, no command.
 */
import { spawn } from "node:child_process";
import type { Sandbox } from "./sandbox.ts";
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

/** The variables a command gets besides PATH, HOME and TMPDIR (sandbox.ts sets those): nothing of the server's. */
export function commandEnvironment(): Record<string, string> {
  return { NODE_ENV: "test", LANG: "C.UTF-8", CI: "1", NO_COLOR: "1" };
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
  /** where the command runs; it refuses the command when it cannot start */
  sandbox: Sandbox;
}

/** Run an allowed command in the sandbox; throws CommandNotAllowedError or SandboxUnavailableError before starting anything. */
export async function runCommand(input: RunCommandInput): Promise<CommandResult> {
  if (!isCommandAllowed(input.command, input.allowed)) throw new CommandNotAllowedError(input.command, input.allowed);
  const maxChars = input.maxOutputChars ?? DEFAULT_COMMAND_OUTPUT_CHARS;
  // slot_run never reaches the network: no hosts
  const prepared = await input.sandbox.prepare({ slotPath: input.slotPath, command: input.command, env: commandEnvironment() });
  try {
    return await new Promise<CommandResult>((resolve) => {
      let output = "";
      let truncated = false;
      let timedOut = false;
      const child = spawn(prepared.argv[0], prepared.argv.slice(1), {
        cwd: prepared.cwd,
        env: prepared.env,
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
        resolve({ exitCode: null, timedOut, truncated, sandboxed: prepared.sandboxed, output: `${output}${error.message}` });
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        killGroup();
        resolve({ exitCode: code, timedOut, truncated, sandboxed: prepared.sandboxed, output });
      });
    });
  } finally {
    prepared.release();
  }
}
