import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseCliAgents, type CliAgents } from "./cli-agent.ts";
import { cliModelProblem, tryCliAgent } from "./cli-check.ts";

let dir: string;
let agents: CliAgents;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "baton-cli-check-"));
  const broken = path.join(dir, "broken-agent");
  await writeFile(broken, "#!/bin/sh\necho 'missing its runtime' >&2\nexit 3\n");
  await chmod(broken, 0o755);
  agents = parseCliAgents(
    JSON.stringify({
      node: { command: [process.execPath, "{input}"] },
      missing: { command: ["baton-no-such-program-xyz"] },
      broken: { command: [broken] },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("testing a cli: model", () => {
  it("reports what a program that starts printed for --version", async () => {
    const trial = await tryCliAgent({ cliAgents: agents, model: "cli:node" });
    expect(trial).toMatchObject({ ok: true, reply: process.version });
  });

  it("names a program that is not there, one that fails, and a name that is not configured", async () => {
    expect(await tryCliAgent({ cliAgents: agents, model: "cli:missing" })).toEqual({
      ok: false,
      error: 'cli:missing: the program "baton-no-such-program-xyz" was not found on PATH',
    });
    expect(await tryCliAgent({ cliAgents: agents, model: "cli:broken" })).toEqual({
      ok: false,
      error: `cli:broken: "${path.join(dir, "broken-agent")} --version" exited with code 3: missing its runtime`,
    });
    expect(await tryCliAgent({ cliAgents: agents, model: "cli:aider" })).toEqual({
      ok: false,
      error: 'no command-line agent "aider" is configured (BATON_CLI_AGENTS has "node", "missing", "broken")',
    });
    expect(cliModelProblem(agents, "offline")).toBeNull();
    expect(cliModelProblem(agents, "cli:node")).toBeNull();
  });
});
