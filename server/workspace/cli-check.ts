/**
 * Admin → Agents' Test button for a `cli:<name>` model: does the configured program
 * start? It is run as an argument vector (no shell) with `--version`, a private
 * temporary folder, only PATH in its environment and a short time limit, and what it
 * printed first is reported. Nothing of a slot or the server's secrets is involved.
 */
import { execFile, type ExecFileException } from "node:child_process";
import { tmpdir } from "node:os";
import type { ModelTrial } from "../protocol/rest/admin.ts";
import { cliAgentName, type CliAgents } from "./cli-agent.ts";

export const CLI_CHECK_TIMEOUT_MS = 5_000;
const REPLY_CHARS = 200;

function configuredNames(cliAgents: CliAgents): string {
  const names = Object.keys(cliAgents);
  return names.length > 0 ? names.map((name) => `"${name}"`).join(", ") : "none";
}

/** Why a `cli:` model id cannot be used here, or null when its agent is configured. */
export function cliModelProblem(cliAgents: CliAgents, model: string): string | null {
  const name = cliAgentName(model);
  if (name === null || cliAgents[name]) return null;
  return `no command-line agent "${name}" is configured (BATON_CLI_AGENTS has ${configuredNames(cliAgents)})`;
}

/** Start the program of a `cli:<name>` model with `--version`; says what it printed or why it did not start. */
export function tryCliAgent(input: { cliAgents: CliAgents; model: string; path?: string; timeoutMs?: number }): Promise<ModelTrial> {
  const problem = cliModelProblem(input.cliAgents, input.model);
  if (problem) return Promise.resolve({ ok: false, error: problem });
  const program = input.cliAgents[cliAgentName(input.model)!].command[0];
  const timeoutMs = input.timeoutMs ?? CLI_CHECK_TIMEOUT_MS;
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      program,
      ["--version"],
      {
        cwd: tmpdir(),
        // typed as the process environment (which Next declares with NODE_ENV), never inherited from it
        env: { NODE_ENV: "production", PATH: input.path ?? process.env.PATH ?? "/usr/bin:/bin", HOME: tmpdir() },
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024,
        encoding: "utf8",
        shell: false,
      },
      (error: ExecFileException | null, stdout: string, stderr: string) => {
        const printed =
          `${stdout}\n${stderr}`
            .split("\n")
            .map((line) => line.trim())
            .find(Boolean)
            ?.slice(0, REPLY_CHARS) ?? "";
        if (!error) {
          resolve({ ok: true, latencyMs: Math.round(performance.now() - started), reply: printed || "(started; printed nothing)" });
          return;
        }
        const code = error.code;
        if (code === "ENOENT") resolve({ ok: false, error: `${input.model}: the program "${program}" was not found on PATH` });
        else if (code === "EACCES")
          resolve({ ok: false, error: `${input.model}: the program "${program}" may not be run (permission denied)` });
        else if (error.killed)
          resolve({ ok: false, error: `${input.model}: "${program} --version" did not end within ${timeoutMs / 1000} s` });
        else
          resolve({
            ok: false,
            error: `${input.model}: "${program} --version" exited with code ${String(error.code)}${printed ? `: ${printed}` : ""}`,
          });
      },
    );
  });
}
