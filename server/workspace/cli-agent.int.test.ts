/**
 * `cli:<name>` agents end to end with a fake command-line agent (a small node script):
 * it reads the step input on stdin, edits files in its working folder and prints
 * progress; the workspace runtime gives it the step's slot and commits what it changed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { agentProfile, recordingSink, runRequest } from "../agents/testing/agent-fixture.ts";
import type { AgentRunner, RunRequest } from "../executor/ports.ts";
import { commitSubjects, createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";
import { fixtureRuntime, linkedConversation, workspacePlan } from "./testing/linked-conversation.ts";
import { parseCliAgents, type CliAgents } from "./cli-agent.ts";
import type { WorkspaceRuntime } from "./workspace-runner.ts";

const FAKE_CLI = `
import { readFileSync, writeFileSync } from "node:fs";
const mode = process.argv[2];
const input = readFileSync(0, "utf8");
console.log("fake-cli: read " + input.length + " characters");
if (mode === "edit") {
  writeFileSync("a.txt", "edited by the cli\\n");
  writeFileSync("task.txt", input.split("\\n")[0] + "\\n");
  process.stderr.write("fake-cli: progress on stderr\\n");
  console.log("fake-cli: wrote a.txt and task.txt");
} else if (mode === "arg") {
  writeFileSync("arg.txt", process.argv[3]);
} else if (mode === "env") {
  writeFileSync("env.json", JSON.stringify({ env: process.env, cwd: process.cwd() }));
} else if (mode === "fail") {
  writeFileSync("a.txt", "half done\\n");
  process.stderr.write("fake-cli: starting\\nerror: could not apply the patch to a.txt\\n");
  process.exit(3);
} else if (mode === "hang") {
  writeFileSync("pid.txt", String(process.pid));
  console.log("fake-cli: started");
  setInterval(() => {}, 1000);
}
`;

/** Host processes whose command line names `file` (a sandboxed program's pid is not the host's). */
function hostProcessesRunning(file: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(file);
      } catch {
        return false;
      }
    })
    .map(Number);
}

let db: TestDatabase;
let fixture: GitFixture;
let scriptDir: string;
let script: string;
let conversationId: string;
let planId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  scriptDir = await mkdtemp(path.join(tmpdir(), "baton-fake-cli-"));
  script = path.join(scriptDir, "fake-cli.mjs");
  await writeFile(script, FAKE_CLI);
});
afterAll(async () => {
  await db?.close();
  await rm(scriptDir, { recursive: true, force: true });
});
beforeEach(async () => {
  fixture = await createGitFixture({ "a.txt": "a\n", "b.txt": "b\n" });
  ({ conversationId } = await linkedConversation(db.prisma, fixture));
  planId = await workspacePlan(db.prisma, conversationId, [{ title: "Edit with the CLI", assignee: "aider", input: "edit a" }], {
    title: "cli",
    maxParallel: 1,
  });
});
afterEach(async () => {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

function runtimeWith(agents: CliAgents): WorkspaceRuntime {
  return fixtureRuntime(db.prisma, fixture, { cliAgents: agents });
}

function fakeAgents(...args: string[]): CliAgents {
  return parseCliAgents(
    JSON.stringify({ fake: { command: [process.execPath, script, ...args], timeoutMs: 60_000, readOnlyPaths: [scriptDir] } }),
  );
}

/** A model runner that must not be called: `cli:` agents never reach the model loop. */
const modelRunner: AgentRunner = {
  run: () => Promise.reject(new Error("the model runner was called for a cli: agent")),
};

const cliAgent = agentProfile({ handle: "aider", model: "cli:fake", allowedTools: [] });

function stepRequest(overrides: Partial<RunRequest> = {}): RunRequest {
  return runRequest({
    runId: "run-cli",
    conversationId,
    agent: cliAgent,
    input: "Rename a to alpha\nin every file",
    step: { planId, stepIndex: 1, title: "Edit with the CLI" },
    ...overrides,
  });
}

describe("cli: agents", () => {
  it("run in the step's slot with the input on stdin; their change is committed on the step's branch", async () => {
    const sink = recordingSink();
    const result = await runtimeWith(fakeAgents("edit")).wrap(modelRunner).run(stepRequest(), sink);
    expect(result).toMatchObject({ kind: "ok", untrusted: true });
    const branch = `baton/${planId}-1`;
    expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..${branch}`)).toEqual(["Edit with the CLI"]);
    expect(await showFile(fixture.repoPath, branch, "a.txt")).toBe("edited by the cli\n");
    expect(await showFile(fixture.repoPath, branch, "task.txt")).toBe("Rename a to alpha\n");
    // stdout and stderr are the run's live text
    expect(sink.text()).toContain("fake-cli: read ");
    expect(sink.text()).toContain("fake-cli: progress on stderr");
    expect(sink.text()).toContain("fake-cli: wrote a.txt and task.txt");
    if (result.kind !== "ok") return;
    // passed on fenced as data (stdout and stderr may interleave either way), with the branch named
    expect(result.summary).toMatch(
      /^cli:fake finished\. The end of its output:\n<untrusted-data source="cli:fake">\n[^<]*<\/untrusted-data>\n/,
    );
    expect(result.summary).toContain("fake-cli: wrote a.txt and task.txt\n");
    expect(result.summary).toContain("fake-cli: progress on stderr\n");
    expect(result.summary).toMatch(new RegExp(`Branch ${branch} at [0-9a-f]{12}: 2 file\\(s\\) changed`));
    expect(result.files).toEqual(["changes/step-1.md"]);
  });

  it("puts the input into an argument holding {input}", async () => {
    const result = await runtimeWith(fakeAgents("arg", "task: {input}")).wrap(modelRunner).run(stepRequest(), recordingSink());
    expect(result.kind).toBe("ok");
    const written = await showFile(fixture.repoPath, `baton/${planId}-1`, "arg.txt");
    expect(written.startsWith("task: Rename a to alpha\nin every file\n\nYou work in a git worktree")).toBe(true);
  });

  it("fails the run on a non-zero exit with the end of stderr, and commits nothing", async () => {
    const result = await runtimeWith(fakeAgents("fail")).wrap(modelRunner).run(stepRequest(), recordingSink());
    expect(result).toEqual({
      kind: "failed",
      transient: false,
      reason: "cli:fake exited with code 3:\nfake-cli: starting\nerror: could not apply the patch to a.txt",
      usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
    });
    expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..baton/${planId}-1`)).toEqual([]);
  });

  it("kills the program when the run is aborted", async () => {
    const controller = new AbortController();
    // the program is killed once it says it started
    const sink = {
      ...recordingSink(),
      textDelta: (delta: string) => {
        if (delta.includes("fake-cli: started")) controller.abort();
      },
    };
    const result = await runtimeWith(fakeAgents("hang"))
      .wrap(modelRunner)
      .run(stepRequest({ signal: controller.signal }), sink);
    expect(result).toMatchObject({ kind: "failed", transient: false, reason: "aborted: the run was cancelled" });
    const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId } });
    expect(Number(await readFile(path.join(slot.path, "pid.txt"), "utf8"))).toBeGreaterThan(0);
    // its pid is the sandbox's own: look for the program among the host's processes instead
    await expect.poll(() => hostProcessesRunning(script)).toEqual([]);
  });

  it("kills the program at its time limit and fails the run", async () => {
    const agents = parseCliAgents(
      JSON.stringify({ fake: { command: [process.execPath, script, "hang"], timeoutMs: 4_000, readOnlyPaths: [scriptDir] } }),
    );
    const result = await runtimeWith(agents).wrap(modelRunner).run(stepRequest(), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: false, reason: "cli:fake timed out after 4 s" });
    const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId } });
    expect(Number(await readFile(path.join(slot.path, "pid.txt"), "utf8"))).toBeGreaterThan(0);
    await expect.poll(() => hostProcessesRunning(script)).toEqual([]);
  });

  it("gives the program no server variables but those its configuration names", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, passed: process.env.BATON_FAKE_CLI_TOKEN };
    process.env.OPENAI_API_KEY = "sk-secret-of-the-server";
    process.env.BATON_FAKE_CLI_TOKEN = "given-on-purpose";
    try {
      const agents = parseCliAgents(
        JSON.stringify({
          fake: {
            command: [process.execPath, script, "env"],
            readOnlyPaths: [scriptDir],
            passEnv: ["BATON_FAKE_CLI_TOKEN"],
            env: { FAKE_MODE: "quiet" },
          },
        }),
      );
      const result = await runtimeWith(agents).wrap(modelRunner).run(stepRequest(), recordingSink());
      expect(result.kind).toBe("ok");
      const seen = JSON.parse(await showFile(fixture.repoPath, `baton/${planId}-1`, "env.json")) as {
        env: Record<string, string>;
        cwd: string;
      };
      expect(seen.env.OPENAI_API_KEY).toBeUndefined();
      expect(JSON.stringify(seen.env)).not.toContain("sk-secret-of-the-server");
      expect(seen.env.BATON_FAKE_CLI_TOKEN).toBe("given-on-purpose");
      expect(seen.env.FAKE_MODE).toBe("quiet");
      expect(seen.env.HOME).not.toBe(process.env.HOME);
      const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId } });
      expect(seen.cwd).toBe(slot.path);
    } finally {
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.key;
      if (saved.passed === undefined) delete process.env.BATON_FAKE_CLI_TOKEN;
      else process.env.BATON_FAKE_CLI_TOKEN = saved.passed;
    }
  });

  it("fails clearly for an unconfigured name, and outside a plan step", async () => {
    const runtime = runtimeWith(fakeAgents("edit"));
    const unknown = await runtime.wrap(modelRunner).run(stepRequest({ agent: { ...cliAgent, model: "cli:codex" } }), recordingSink());
    expect(unknown).toMatchObject({
      kind: "failed",
      transient: false,
      reason: 'no command-line agent "codex" is configured for @aider (BATON_CLI_AGENTS has "fake")',
    });
    const mention = await runtime.wrap(modelRunner).run(stepRequest({ step: undefined }), recordingSink());
    expect(mention).toMatchObject({
      kind: "failed",
      transient: false,
      reason: "@aider (cli:fake) works only on plan steps in a conversation linked to a repository",
    });
    expect(await db.prisma.slot.count()).toBe(0);
  });
});
