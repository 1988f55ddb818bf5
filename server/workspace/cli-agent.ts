/**
 * External coding agents: an agent whose model is `cli:<name>` runs a command-line
 * coding agent (Claude Code, Codex CLI, Aider, …) configured by the operator, in the
 * step's slot. The workspace runtime makes the slot and commits what the program
 * changed there; this module only runs the program:
 *
 * - the step input goes to its stdin, and into any argument holding `{input}`;
 * - it runs as an argument vector in the sandbox (sandbox.ts) with the slot as its
 *   working folder, a time limit, and an environment of its own: a PATH, a private
 *   HOME and TMPDIR, plus only the variables its configuration names (`env`,
 *   `passEnv`) — nothing else of the server's, so no secrets it was not given; the
 *   network only to the hosts its configuration names (`allowedHosts`);
 * - its stdout and stderr are the run's live text; what is passed on (summary) is
 *   fenced as untrusted data;
 * - exit code ≠ 0 fails the run with the last lines of stderr; the run's abort
 *   signal and the time limit kill its whole process group.
 *
 * Configuration: `BATON_CLI_AGENTS` holds JSON `{"<name>": {"command": [...],
 * "timeoutMs": 600000, "env": {...}, "passEnv": [...], "allowedHosts": ["api.example.com"]}}`, or `BATON_CLI_AGENTS_FILE`
 * names a file holding the same JSON.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { fenceUntrusted } from "../core/fence.ts";
import type { AgentRunResult, RunSink } from "../ports/executor.ts";
import { commandEnvironment } from "./command.ts";
import { truncateText } from "../core/text.ts";
import { SandboxUnavailableError, type PreparedCommand, type Sandbox } from "./sandbox.ts";

export const CLI_MODEL_PREFIX = "cli:";
export const DEFAULT_CLI_TIMEOUT_MS = 600_000;
/** live text streamed into the conversation, at most (the program keeps running past it) */
export const DEFAULT_CLI_STREAM_CHARS = 200_000;
/** the end of the output kept for the result, and of stderr for a failure reason */
const OUTPUT_TAIL_CHARS = 8_000;
const STDERR_TAIL_LINES = 20;
const INPUT_PLACEHOLDER = "{input}";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;

const cliAgentSchema = z
  .object({
    /** the program and its arguments; an argument holding `{input}` gets the step input there */
    command: z.array(z.string().min(1, "an argument is empty")).min(1, "needs at least the program"),
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(24 * 3_600_000)
      .default(DEFAULT_CLI_TIMEOUT_MS),
    /** variables set for the program, as given */
    env: z.record(z.string().regex(VARIABLE, "is not a variable name"), z.string()).default({}),
    /** names of the server's variables passed through (e.g. the program's own API key) */
    passEnv: z.array(z.string().regex(VARIABLE, "is not a variable name")).default([]),
    /** absolute folders the program may read besides the system's (its installation, when outside /usr) */
    readOnlyPaths: z.array(z.string().startsWith("/", "is not an absolute path")).default([]),
    /** the hosts the program may reach (its model provider's API), e.g. `api.example.com` or `*.example.com`; none: no network */
    allowedHosts: z.array(z.string().regex(HOST, "is not a host name (letters, digits, '-', '.', an optional leading '*.')")).default([]),
  })
  .strict();

export type CliAgentConfig = z.infer<typeof cliAgentSchema>;
export type CliAgents = Readonly<Record<string, CliAgentConfig>>;
/** the server's variables, read only for `passEnv` */
export type ServerEnv = Readonly<Record<string, string | undefined>>;

export class CliAgentConfigError extends Error {
  readonly code = "cli-agent-config";
  constructor(message: string) {
    super(message);
    this.name = "CliAgentConfigError";
  }
}

/** The configured CLI agents from JSON; an error names the bad key (`BATON_CLI_AGENTS.aider.command`). */
export function parseCliAgents(json: string, source = "BATON_CLI_AGENTS"): CliAgents {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new CliAgentConfigError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new CliAgentConfigError(`${source}: expected an object of {"<name>": {"command": ["program", "args"…]}}`);
  }
  const agents: Record<string, CliAgentConfig> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!NAME.test(name)) throw new CliAgentConfigError(`${source}.${name}: a name is 1-64 letters, digits, '_', '.' or '-'`);
    const parsed = cliAgentSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CliAgentConfigError(`${[source, name, ...issue.path.map(String)].join(".")}: ${issue.message}`);
    }
    agents[name] = parsed.data;
  }
  return agents;
}

/** From the environment: `BATON_CLI_AGENTS` (JSON) or `BATON_CLI_AGENTS_FILE` (a JSON file); none: no CLI agents. */
export function readCliAgents(env: Record<string, string | undefined> = process.env): CliAgents {
  const inline = env.BATON_CLI_AGENTS?.trim();
  const file = env.BATON_CLI_AGENTS_FILE?.trim();
  if (inline && file) throw new CliAgentConfigError("set BATON_CLI_AGENTS or BATON_CLI_AGENTS_FILE, not both");
  if (inline) return parseCliAgents(inline);
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliAgentConfigError(`BATON_CLI_AGENTS_FILE: cannot read ${file} (${(error as Error).message})`);
  }
  return parseCliAgents(text, path.basename(file));
}

/** The CLI agent a model id names (`cli:aider` → `aider`), or null for a model. */
export function cliAgentName(model: string): string | null {
  return model.startsWith(CLI_MODEL_PREFIX) ? model.slice(CLI_MODEL_PREFIX.length) : null;
}

/** The program's environment (PATH, HOME and TMPDIR aside): the minimal one of slot commands, the passed variables, then `env`. */
export function cliEnvironment(config: CliAgentConfig, server: ServerEnv): Record<string, string> {
  const passed = Object.fromEntries(config.passEnv.flatMap((name) => (server[name] !== undefined ? [[name, server[name]] as const] : [])));
  return { ...commandEnvironment(), ...passed, ...config.env };
}

/** A markdown code block that the text cannot close early. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}

const NO_USAGE = { tokensIn: 0, tokensOut: 0, cost: 0 };

export interface RunCliAgentInput {
  name: string;
  config: CliAgentConfig;
  /** the slot: the program's working folder */
  cwd: string;
  input: string;
  signal: AbortSignal;
  sink: RunSink;
  /** the server's environment, read only for `passEnv` (default: process.env) */
  serverEnv?: ServerEnv;
  maxStreamChars?: number;
  /** where the program runs: the slot and the toolchain, the network only to `allowedHosts` */
  sandbox: Sandbox;
}

/** Run a configured CLI agent to its end; its changes stay in `cwd` for the caller to commit. */
export async function runCliAgent(input: RunCliAgentInput): Promise<AgentRunResult> {
  const label = `${CLI_MODEL_PREFIX}${input.name}`;
  const fail = (reason: string): AgentRunResult => ({ kind: "failed", transient: false, reason, usage: NO_USAGE });
  if (input.signal.aborted) return fail("aborted: the run was cancelled");
  const argv = input.config.command.map((arg) => arg.replaceAll(INPUT_PLACEHOLDER, input.input));
  const maxStream = input.maxStreamChars ?? DEFAULT_CLI_STREAM_CHARS;
  let prepared: PreparedCommand;
  try {
    prepared = await input.sandbox.prepare({
      slotPath: input.cwd,
      command: argv,
      allowedHosts: input.config.allowedHosts,
      readOnlyPaths: input.config.readOnlyPaths,
      env: cliEnvironment(input.config, input.serverEnv ?? process.env),
    });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return fail(`${label} cannot run: ${error.message}`);
    throw error;
  }
  try {
    const ended = await new Promise<{
      code: number | null;
      error?: Error;
      timedOut: boolean;
      aborted: boolean;
      output: string;
      stderr: string;
    }>((resolve) => {
      let output = "";
      let stderr = "";
      let streamed = 0;
      let timedOut = false;
      let aborted = false;
      const child = spawn(prepared.argv[0], prepared.argv.slice(1), {
        cwd: prepared.cwd,
        env: prepared.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      const stream = (text: string) => {
        if (streamed >= maxStream) return;
        const part = truncateText(text, maxStream - streamed);
        streamed += part.length;
        input.sink.textDelta(part);
        if (streamed >= maxStream) input.sink.textDelta(`\n… (live output truncated after ${maxStream} characters)\n`);
      };
      child.stdout.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        output = (output + text).slice(-OUTPUT_TAIL_CHARS);
        stream(text);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        output = (output + text).slice(-OUTPUT_TAIL_CHARS);
        stderr = (stderr + text).slice(-OUTPUT_TAIL_CHARS);
        stream(text);
      });
      // a program that does not read its input closes stdin early; that is not an error
      child.stdin.on("error", () => {});
      child.stdin.end(input.input);
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const onAbort = () => {
        aborted = true;
        killGroup();
      };
      input.signal.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, input.config.timeoutMs);
      const done = (code: number | null, error?: Error) => {
        clearTimeout(timer);
        input.signal.removeEventListener("abort", onAbort);
        // whatever the program left running in its group goes with it
        killGroup();
        resolve({ code, error, timedOut, aborted, output, stderr });
      };
      child.on("error", (error) => done(null, error));
      child.on("close", (code) => done(code));
    });
    if (ended.aborted) return fail("aborted: the run was cancelled");
    if (ended.error) return fail(`${label} could not start (${argv[0]}): ${ended.error.message}`);
    if (ended.timedOut) return fail(`${label} timed out after ${Math.round(input.config.timeoutMs / 1000)} s`);
    if (ended.code !== 0) {
      const tail = lastLines(ended.stderr, STDERR_TAIL_LINES);
      return fail(`${label} exited with code ${ended.code ?? "(signal)"}${tail ? `:\n${tail}` : " and wrote nothing to stderr"}`);
    }
    const tail = lastLines(ended.output, STDERR_TAIL_LINES);
    return {
      kind: "ok",
      text: tail ? `${label} finished. The end of its output:\n\n${codeBlock(tail)}` : `${label} finished.`,
      summary: tail ? `${label} finished. The end of its output:\n${fenceUntrusted(tail, label)}` : `${label} finished.`,
      files: [],
      // the program's output is not ours: whatever reads it treats it as data
      untrusted: true,
      usage: NO_USAGE,
    };
  } finally {
    prepared.release();
  }
}
