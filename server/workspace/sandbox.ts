/**
 * The sandbox every command an agent causes runs in (`slot_run`, `cli:` agents):
 * `@anthropic-ai/sandbox-runtime`, which wraps bubblewrap with filesystem and
 * network policies. Inside a command sees:
 *
 * - the root hidden: only the toolchain (/usr, /lib, /lib64, /bin, /sbin, /etc and
 *   the folder of the node binary the server runs) read-only, and its slot
 *   read-write; nothing of the data dir, the checkout, $HOME, other slots or other
 *   repositories, wherever they live (under the checkout or under /tmp alike);
 * - a private /tmp (a tmpfs; HOME and TMPDIR point into it);
 * - a fresh PID namespace with its own /proc, all capabilities dropped;
 * - a network namespace of its own whose only way out is the library's filtering
 *   proxy: no host at all for `slot_run`, only the configured hosts for a `cli:` agent;
 * - only the environment the caller gives (never the server's).
 *
 * No sandbox, no commands: when bubblewrap, socat or ripgrep is missing, or a trial
 * command fails, every command is refused with a message naming the fix, unless the
 * operator set BATON_UNSANDBOXED_COMMANDS=1.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { SandboxManager, type SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";

/** What an operator runs to make the sandbox available (Debian/Ubuntu). */
export const SANDBOX_FIX = "apt-get install bubblewrap socat ripgrep";
export const UNSANDBOXED_VARIABLE = "BATON_UNSANDBOXED_COMMANDS";

/** The folders of the system a command may read: what npm, node, git, make and python need. */
const SYSTEM_TOOLCHAIN = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"] as const;
/** Where HOME is inside the sandbox: under its private /tmp. */
export const SANDBOX_HOME = "/tmp/home";

export type SandboxStatus =
  /** commands run sandboxed */
  | { state: "ready" }
  /** commands are refused: `reason` says what is missing */
  | { state: "unavailable"; reason: string }
  /** the sandbox cannot start and BATON_UNSANDBOXED_COMMANDS=1: commands run without it */
  | { state: "unsandboxed"; reason: string };

export class SandboxUnavailableError extends Error {
  readonly code = "sandbox-unavailable";
  constructor(readonly reason: string) {
    super(`Commands are refused: the sandbox cannot start (${reason}). The server's operator can fix this with \`${SANDBOX_FIX}\`.`);
    this.name = "SandboxUnavailableError";
  }
}

/** The programs the sandbox needs, by name on PATH or by absolute path. */
export interface SandboxPrograms {
  bwrap: string;
  socat: string;
  ripgrep: string;
}

export interface SandboxOptions {
  /** default: `bwrap`, `socat`, `rg` from PATH (tests point one at a missing file) */
  programs?: Partial<SandboxPrograms>;
  /** BATON_UNSANDBOXED_COMMANDS=1: run commands without a sandbox when it cannot start */
  allowUnsandboxed?: boolean;
}

export interface SandboxedCommandInput {
  /** the only writable folder, and the working folder */
  slotPath: string;
  /** program and arguments; never through a shell of the caller's */
  command: string[];
  /** hosts the command may reach through the proxy (`api.example.com`, `*.example.com`); none: no network */
  allowedHosts?: readonly string[];
  /** absolute folders the command may read besides the toolchain (a `cli:` program's installation) */
  readOnlyPaths?: readonly string[];
  /** the command's whole environment besides PATH, HOME and TMPDIR */
  env?: Readonly<Record<string, string>>;
}

/** A command ready to spawn: argv and environment; `release()` once it has exited. */
export interface PreparedCommand {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  sandboxed: boolean;
  release(): void;
}

export interface Sandbox {
  status(): Promise<SandboxStatus>;
  /** Throws SandboxUnavailableError when commands are refused. */
  prepare(input: SandboxedCommandInput): Promise<PreparedCommand>;
}

/** Where a program is: an absolute path that is executable, or the first match on PATH; null when none. */
export function findProgram(program: string, searchPath = process.env.PATH ?? ""): string | null {
  const candidates = program.includes("/")
    ? [program]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The folder of the node binary this server runs (npm may put one from node_modules first on PATH). */
export function nodeBinaryFolder(): string {
  return path.dirname(realpathSync(process.execPath));
}

/** The seccomp helper the library ships: it must be readable inside the sandbox it applies. */
function seccompHelperFolder(): string {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve("@anthropic-ai/sandbox-runtime/package.json"));
  return path.join(root, "vendor", "seccomp", process.arch === "arm64" ? "arm64" : "x64");
}

/** Read-only folders every command gets. */
export function toolchainFolders(): string[] {
  return [...new Set([...SYSTEM_TOOLCHAIN, nodeBinaryFolder(), seccompHelperFolder()])];
}

/** PATH inside the sandbox: the server's node first, then the system's. */
export function sandboxPath(): string {
  return [nodeBinaryFolder(), "/usr/local/bin", "/usr/bin", "/bin"].filter((dir, index, all) => all.indexOf(dir) === index).join(":");
}

/** A POSIX shell word holding `text` literally. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The filesystem policy of one command: deny the root, allow back the toolchain and the slot. */
export function commandPolicy(slotPath: string, readOnlyPaths: readonly string[] = []): Partial<SandboxRuntimeConfig> {
  return {
    filesystem: {
      denyRead: ["/"],
      allowRead: [
        ...toolchainFolders(),
        ...readOnlyPaths.map((folder) => ({ path: folder, literal: true as const })),
        { path: slotPath, literal: true },
      ],
      allowWrite: [{ path: slotPath, literal: true }],
      denyWrite: [],
    },
    // per-command hosts are registered under the command's id; the session allows none
    network: { allowedDomains: [], deniedDomains: [] },
  };
}

function sessionConfig(programs: SandboxPrograms): SandboxRuntimeConfig {
  return {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: ["/"], allowRead: toolchainFolders(), allowWrite: [], denyWrite: [] },
    bwrapPath: programs.bwrap,
    socatPath: programs.socat,
    ripgrep: { command: programs.ripgrep },
  };
}

/**
 * The library looks programs up with `which` under a one-second limit, which a
 * loaded machine can miss: a failed start or wrap is tried again before it counts.
 */
const ATTEMPTS = 3;

async function withRetries<T>(action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The library's manager is one per process: it is started once, whatever number of Sandbox objects. */
let session: Promise<void> | null = null;

function startSession(programs: SandboxPrograms): Promise<void> {
  session ??= withRetries(() => SandboxManager.initialize(sessionConfig(programs))).catch((error: unknown) => {
    session = null;
    throw error;
  });
  return session;
}

async function wrap(input: SandboxedCommandInput): Promise<PreparedCommand> {
  const hosts = input.allowedHosts ?? [];
  const commandId = randomBytes(16).toString("base64url");
  if (hosts.length > 0) SandboxManager.registerCommandNetworkLists(commandId, { allowedDomains: [...hosts] });
  const release = () => SandboxManager.unregisterCommandNetworkLists(commandId);
  try {
    const script =
      `export HOME=${SANDBOX_HOME} TMPDIR=/tmp; mkdir -p "$HOME"; ` +
      `cd ${shellQuote(input.slotPath)} && exec ${input.command.map(shellQuote).join(" ")}`;
    const wrapped = await withRetries(() =>
      SandboxManager.wrapWithSandboxArgv(
        script,
        "/bin/bash",
        commandPolicy(input.slotPath, input.readOnlyPaths),
        undefined,
        input.slotPath,
        {
          commandId,
        },
      ),
    );
    // the wrapper's environment is the server's plus the proxy settings: only the argv is used
    const env: NodeJS.ProcessEnv = { NODE_ENV: "production", ...input.env, PATH: sandboxPath(), HOME: SANDBOX_HOME, TMPDIR: "/tmp" };
    return { argv: wrapped.argv, env, cwd: input.slotPath, sandboxed: true, release };
  } catch (error) {
    release();
    throw error;
  }
}

async function unsandboxed(input: SandboxedCommandInput): Promise<PreparedCommand> {
  const home = await mkdtemp(path.join(tmpdir(), "baton-cmd-"));
  const env: NodeJS.ProcessEnv = { NODE_ENV: "production", ...input.env, PATH: sandboxPath(), HOME: home, TMPDIR: home };
  const release = () => void rm(home, { recursive: true, force: true }).catch(() => {});
  return { argv: input.command, env, cwd: input.slotPath, sandboxed: false, release };
}

/** Run `true` in the sandbox: bubblewrap may be installed and still unable to start (no user namespaces). */
async function trial(): Promise<string | null> {
  const prepared = await wrap({ slotPath: "/tmp", command: ["true"] });
  try {
    return await new Promise<string | null>((resolve) => {
      let stderr = "";
      const child = spawn(prepared.argv[0], prepared.argv.slice(1), { env: prepared.env, stdio: ["ignore", "ignore", "pipe"] });
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.on("error", (error) => resolve(error.message));
      child.on("close", (code) => resolve(code === 0 ? null : `a trial command exited with ${code}: ${stderr.trim().slice(-300)}`));
    });
  } finally {
    prepared.release();
  }
}

/** Check once what the sandbox needs, start the library's session, and try it. */
async function probe(programs: SandboxPrograms): Promise<SandboxStatus> {
  if (process.platform !== "linux") return { state: "unavailable", reason: `no sandbox on ${process.platform}` };
  const missing = (Object.entries(programs) as [keyof SandboxPrograms, string][])
    .filter(([, program]) => findProgram(program) === null)
    .map(([name, program]) => (name === "bwrap" ? `bubblewrap (${program})` : `${name} (${program})`));
  if (missing.length > 0) return { state: "unavailable", reason: `not installed: ${missing.join(", ")}` };
  const resolved = { bwrap: findProgram(programs.bwrap)!, socat: findProgram(programs.socat)!, ripgrep: findProgram(programs.ripgrep)! };
  try {
    await startSession(resolved);
    // the library checks its dependencies as it starts; the trial shows that bubblewrap can make a sandbox here
    const failed = await trial();
    return failed === null ? { state: "ready" } : { state: "unavailable", reason: failed };
  } catch (error) {
    return { state: "unavailable", reason: (error as Error).message };
  }
}

/** The sandbox of this server; probes on first use and remembers the answer. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const programs: SandboxPrograms = { bwrap: "bwrap", socat: "socat", ripgrep: "rg", ...options.programs };
  let known: Promise<SandboxStatus> | null = null;
  const status = async (): Promise<SandboxStatus> => {
    known ??= probe(programs);
    const found = await known;
    // only a working sandbox is remembered: one installed later, or a start a loaded machine missed, is seen on the next command
    if (found.state === "unavailable") known = null;
    if (found.state === "unavailable" && options.allowUnsandboxed === true) return { state: "unsandboxed", reason: found.reason };
    return found;
  };
  return {
    status,
    async prepare(input) {
      const current = await status();
      if (current.state === "ready") return wrap(input);
      if (current.state === "unavailable") throw new SandboxUnavailableError(current.reason);
      return unsandboxed(input);
    },
  };
}

/** The server's sandbox, from its environment (BATON_UNSANDBOXED_COMMANDS). */
export function sandboxFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Sandbox {
  return createSandbox({ allowUnsandboxed: env[UNSANDBOXED_VARIABLE] === "1" });
}

/** On globalThis: the pages Next bundles read the custom server's sandbox, not a second one. */
const shared = globalThis as typeof globalThis & { batonSandbox?: Sandbox };

/** One sandbox per process (the library's session is one per process too). */
export function defaultSandbox(): Sandbox {
  shared.batonSandbox ??= sandboxFromEnv();
  return shared.batonSandbox;
}

/** The line the server logs at start-up; null when nothing needs saying. */
export function sandboxStartupMessage(status: SandboxStatus): string | null {
  switch (status.state) {
    case "ready":
      return null;
    case "unavailable":
      return `Sandbox unavailable (${status.reason}): agents' commands and cli: agents are refused. Fix: ${SANDBOX_FIX}`;
    case "unsandboxed":
      return `WARNING: ${UNSANDBOXED_VARIABLE}=1 and the sandbox cannot start (${status.reason}): agents' commands run WITHOUT a sandbox and can read this server's files and secrets. Fix: ${SANDBOX_FIX}`;
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}
