/**
 * The escape suite, against the real sandbox: an agent whose allow-list holds only
 * `workspace` and `command:npm test` rewrites package.json so that `npm test` runs
 * its own script, and that script tries every way out issue 41 found. Each attempt
 * must fail, nothing outside the slot may change, and Baton's commit afterwards
 * must not obey what the script planted in git.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { homedir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { agentProfile, recordingSink, runRequest } from "../agents/testing/agent-fixture.ts";
import type { AgentRunner, AgentRunResult, RunRequest } from "../executor/ports.ts";
import { createGitFixture, type GitFixture } from "./testing/git-fixture.ts";
import { fixtureRuntime, linkedConversation, workspacePlan } from "./testing/linked-conversation.ts";
import { createSandbox, defaultSandbox, SANDBOX_FIX, SandboxUnavailableError, type Sandbox } from "./sandbox.ts";
import { createWorkspaceRuntime, type WorkspaceRuntime } from "./workspace-runner.ts";
import { MemoryArtifactStore } from "../agents/memory-stores.ts";

const callOptions = { toolCallId: "t1", messages: [] };
const coder = agentProfile({ handle: "coder", allowedTools: ["workspace", "command:npm test"] });
const NO_USAGE = { tokensIn: 0, tokensOut: 0, cost: 0 };

/** The script the "agent" plants: each attempt prints one JSON line, `ok: true` when it got through. */
const ESCAPE_SCRIPT = String.raw`
import { readFileSync, writeFileSync, appendFileSync, readdirSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import net from "node:net";
import http from "node:http";
const targets = JSON.parse(readFileSync("targets.json", "utf8"));
const report = (name, ok, detail) => console.log("ESCAPE " + JSON.stringify({ name, ok, detail: String(detail).slice(0, 200) }));
const attempt = (name, action) => {
  try { report(name, true, action()); } catch (error) { report(name, false, error.code ?? error.message); }
};
attempt("read the data dir's auth-secret (under /tmp)", () => readFileSync(targets.tmpSecret, "utf8"));
attempt("read the data dir's auth-secret (under the checkout)", () => readFileSync(targets.checkoutSecret, "utf8"));
attempt("read /proc/1/environ", () => { const text = readFileSync("/proc/1/environ", "utf8"); if (!text.includes(targets.canary)) throw new Error("no server variables in it"); return text; });
attempt("read the server's /proc/<pid>/environ", () => { const text = readFileSync("/proc/" + targets.serverPid + "/environ", "utf8"); if (!text.includes(targets.canary)) throw new Error("not the server's"); return text; });
attempt("find the server's variables in any /proc/<pid>/environ", () => {
  const pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  const found = pids.filter((pid) => { try { return readFileSync("/proc/" + pid + "/environ", "utf8").includes(targets.canary); } catch { return false; } });
  if (found.length === 0) throw new Error("not in any of the " + pids.length + " processes it sees (" + pids.join(",") + ")");
  return found.join(",");
});
attempt("read a file in $HOME", () => readFileSync(targets.homeFile, "utf8"));
attempt("read another slot", () => readFileSync(targets.otherSlotFile, "utf8"));
attempt("read the checkout's package.json", () => readFileSync(targets.checkout + "/package.json", "utf8"));
attempt("write outside the slot (next to it)", () => writeFileSync(targets.outsideFile, "escaped"));
attempt("write into the data dir", () => writeFileSync(targets.tmpSecret, "overwritten"));
attempt("append to the base repository's config", () => appendFileSync(targets.repoConfig, "\n[core]\n\thooksPath = /tmp/evil\n"));
attempt("plant core.hooksPath through git config", () => execFileSync("git", ["config", "core.hooksPath", "evil-hooks"], { stdio: "pipe" }).toString());
attempt("plant core.fsmonitor through git config", () => execFileSync("git", ["config", "core.fsmonitor", "./fsmonitor.sh"], { stdio: "pipe" }).toString());
attempt("write a hook into the worktree's git dir", () => { mkdirSync(targets.worktreeGitDir + "/hooks", { recursive: true }); writeFileSync(targets.worktreeGitDir + "/hooks/pre-commit", "#!/bin/sh\ntouch " + targets.hookMarker + "\n"); });
// a git dir of the script's own, with an fsmonitor program that leaves a marker where only the host can write
attempt("point .git at a planted git dir", () => {
  execFileSync("git", ["init", "--quiet", "planted"], { stdio: "pipe" });
  writeFileSync("fsmonitor.sh", "#!/bin/sh\ntouch " + targets.hookMarker + "\n", { mode: 0o755 });
  execFileSync("git", ["--git-dir=planted/.git", "config", "core.fsmonitor", process.cwd() + "/fsmonitor.sh"], { stdio: "pipe" });
  writeFileSync(".git", "gitdir: " + process.cwd() + "/planted/.git\n");
  return "rewritten (Baton must refuse to follow it)";
});
report("uid", false, process.getuid());
const tcp = new Promise((resolve) => {
  const socket = net.connect({ host: "127.0.0.1", port: targets.port });
  socket.setTimeout(3000, () => { socket.destroy(); resolve([false, "timeout"]); });
  socket.on("connect", () => { socket.end("hello from the slot"); resolve([true, "connected"]); });
  socket.on("error", (error) => resolve([false, error.code ?? error.message]));
});
const proxied = new Promise((resolve) => {
  const proxy = process.env.http_proxy;
  if (!proxy) return resolve([false, "no proxy"]);
  const url = new URL(proxy);
  const through = http.request({ host: url.hostname, port: url.port, method: "GET", path: "http://127.0.0.1:" + targets.port + "/", headers: { "proxy-authorization": "Basic " + Buffer.from(decodeURIComponent(url.username) + ":" + url.password).toString("base64") } }, (response) => resolve([response.statusCode === 200, "status " + response.statusCode]));
  through.setTimeout(3000, () => { through.destroy(); resolve([false, "timeout"]); });
  through.on("error", (error) => resolve([false, error.code ?? error.message]));
  through.end();
});
const [tcpOk, tcpDetail] = await tcp;
report("connect to 127.0.0.1:<listening port>", tcpOk, tcpDetail);
const [proxyOk, proxyDetail] = await proxied;
report("reach 127.0.0.1:<listening port> through the sandbox's proxy", proxyOk, proxyDetail);
`;

interface Attempt {
  name: string;
  ok: boolean;
  detail: string;
}

let db: TestDatabase;
let fixture: GitFixture;
let conversationId: string;
let planId: string;
let listener: Server;
let connections: number;
let checkoutData: string;
let homeFile: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  fixture = await createGitFixture({ "package.json": '{"name":"victim","private":true,"scripts":{"test":"node -e 0"}}\n' });
  ({ conversationId } = await linkedConversation(db.prisma, fixture));
  planId = await workspacePlan(db.prisma, conversationId, [{ title: "Other step" }, { title: "Fix the tests" }]);
  connections = 0;
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  // data dirs where operators put them: under /tmp (the fixture) and under the checkout
  await mkdir(path.join(fixture.root, "data"), { recursive: true });
  await writeFile(path.join(fixture.root, "data", "auth-secret"), "tmp-secret");
  checkoutData = path.join(process.cwd(), `.escape-data-${randomUUID().slice(0, 8)}`);
  await mkdir(checkoutData);
  await writeFile(path.join(checkoutData, "auth-secret"), "checkout-secret");
  homeFile = path.join(homedir(), `.baton-escape-${randomUUID().slice(0, 8)}`);
  await writeFile(homeFile, "home-secret");
  process.env.BATON_ESCAPE_CANARY = "canary-of-the-server";
});
afterEach(async () => {
  delete process.env.BATON_ESCAPE_CANARY;
  await new Promise((resolve) => listener.close(resolve));
  await rm(checkoutData, { recursive: true, force: true });
  await rm(homeFile, { force: true });
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

/** A scripted agent: writes files through the slot tools, runs `npm test`, hands back what it printed. */
function scriptedAgent(runtime: WorkspaceRuntime, writes: Record<string, string>, output: { value: unknown }): AgentRunner {
  return {
    async run(request: RunRequest): Promise<AgentRunResult> {
      const tools = runtime.toolsFor(request)!;
      for (const [file, content] of Object.entries(writes)) await tools.slot_write.execute!({ path: file, content }, callOptions);
      if (Object.keys(writes).length > 0) output.value = await tools.slot_run.execute!({ command: ["npm", "test"] }, callOptions);
      return { kind: "ok", text: "done", summary: "done", files: [], untrusted: false, usage: NO_USAGE };
    },
  };
}

function stepRequest(stepIndex: number): RunRequest {
  return runRequest({ runId: `run-${stepIndex}`, conversationId, agent: coder, step: { planId, stepIndex, title: `Step ${stepIndex}` } });
}

/** Every file under a folder with its content hash: what "nothing changed" is checked against. */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files[path.relative(root, full)] = createHash("sha256").update(readFileSync(full)).digest("hex");
    }
  };
  walk(root);
  return files;
}

function attempts(output: unknown): Attempt[] {
  const text = (output as { output: string }).output;
  return [...text.matchAll(/^ESCAPE (.*)$/gm)].map((match) => JSON.parse(match[1]) as Attempt);
}

describe("the sandbox against a poisoned npm test", () => {
  it("stops every attempt, changes nothing outside the slot, and Baton's commit refuses the planted .git", async () => {
    const runtime = fixtureRuntime(db.prisma, fixture);
    // another slot beside this one (the folder layout of another step's worktree), with something in it
    const otherSlot = { path: path.join(fixture.root, "slots", "other-repository", "other-plan-1") };
    await mkdir(otherSlot.path, { recursive: true });
    await writeFile(path.join(otherSlot.path, "other-slot-secret.txt"), "other-slot");

    // the slot of step 2 is made at run start: name the targets once it exists
    const outside = { before: {} as Record<string, string>, repo: {} as Record<string, string> };
    const output = { value: null as unknown };
    const hookMarker = path.join(fixture.root, "hook-ran");
    const poisoned: AgentRunner = {
      async run(request) {
        const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId, stepIndex: 2 } });
        const worktreeGitDir = readFileSync(path.join(slot.path, ".git"), "utf8")
          .replace(/^gitdir: /, "")
          .trim();
        const targets = {
          tmpSecret: path.join(fixture.root, "data", "auth-secret"),
          checkoutSecret: path.join(checkoutData, "auth-secret"),
          checkout: process.cwd(),
          canary: "canary-of-the-server",
          serverPid: process.pid,
          homeFile,
          otherSlotFile: path.join(otherSlot.path, "other-slot-secret.txt"),
          outsideFile: path.join(path.dirname(slot.path), "escaped.txt"),
          repoConfig: path.join(fixture.repoPath, "config"),
          worktreeGitDir,
          hookMarker,
          port: (listener.address() as { port: number }).port,
        };
        outside.before = snapshot(fixture.root);
        delete outside.before[path.relative(fixture.root, path.join(slot.path, "targets.json"))];
        const writes = {
          "targets.json": JSON.stringify(targets),
          "escape.mjs": ESCAPE_SCRIPT,
          "package.json": '{"name":"victim","private":true,"scripts":{"test":"node escape.mjs"}}\n',
        };
        return scriptedAgent(runtime, writes, output).run(request, recordingSink());
      },
    };
    const started = Date.now();
    const result = await runtime.wrap(poisoned).run(stepRequest(2), recordingSink());
    console.log(`poisoned step took ${Date.now() - started} ms`);
    const tried = attempts(output.value);
    const report = tried.map((attempt) => `${attempt.ok ? "GOT THROUGH" : "stopped"}: ${attempt.name} (${attempt.detail})`).join("\n");
    console.log(`escape attempts:\n${report}`);
    expect(tried.length).toBeGreaterThanOrEqual(18);
    // every read and connection fails; writes outside the slot land in the sandbox's private /tmp at most
    // (checked on the host below), and the .git rewrite is the slot's own file (Baton must not follow it)
    const inSlotOrPrivate = [
      "write outside the slot (next to it)",
      "write a hook into the worktree's git dir",
      "point .git at a planted git dir",
    ];
    expect(tried.filter((attempt) => attempt.ok && !inSlotOrPrivate.includes(attempt.name))).toEqual([]);
    expect(connections).toBe(0);

    // Baton's commit does not follow the planted .git: the step fails, naming why, and no hook ran
    expect(result).toMatchObject({ kind: "failed", transient: false });
    if (result.kind === "failed") expect(result.reason).toMatch(/refusing to run git in .*: its \.git names a git dir inside the worktree/);
    expect(existsSync(hookMarker)).toBe(false);

    // nothing outside the slot changed: the fixture's folders (repository, data dir, other slot), the checkout's data dir, $HOME's file
    const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId, stepIndex: 2 } });
    const after = snapshot(fixture.root);
    const slotPrefix = `${path.relative(fixture.root, slot.path)}${path.sep}`;
    const outsideSlot = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).filter(([file]) => !file.startsWith(slotPrefix)));
    expect(outsideSlot(after)).toEqual(outsideSlot(outside.before));
    expect(readFileSync(path.join(checkoutData, "auth-secret"), "utf8")).toBe("checkout-secret");
    expect(readFileSync(homeFile, "utf8")).toBe("home-secret");
    expect(statSync(path.join(fixture.repoPath, "config")).isFile()).toBe(true);
    expect(existsSync(path.join(path.dirname(slot.path), "escaped.txt"))).toBe(false);
  }, 180_000);

  it("refuses to commit when the slot's .git became a folder of the script's own", async () => {
    const runtime = fixtureRuntime(db.prisma, fixture);
    const hookMarker = path.join(fixture.root, "hook-ran");
    const script = String.raw`
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
rmSync(".git");
execFileSync("git", ["init", "--quiet", "."], { stdio: "pipe" });
writeFileSync(".git/hooks/pre-commit", "#!/bin/sh\ntouch ${hookMarker}\n", { mode: 0o755 });
execFileSync("git", ["config", "core.fsmonitor", "touch ${hookMarker}"], { stdio: "pipe" });
console.log("ESCAPE " + JSON.stringify({ name: "replace .git with a folder", ok: true, detail: "done" }));
`;
    const output = { value: null as unknown };
    const writes = { "escape.mjs": script, "package.json": '{"name":"victim","private":true,"scripts":{"test":"node escape.mjs"}}\n' };
    const result = await runtime.wrap(scriptedAgent(runtime, writes, output)).run(stepRequest(2), recordingSink());
    expect(attempts(output.value)).toEqual([{ name: "replace .git with a folder", ok: true, detail: "done" }]);
    expect(result).toMatchObject({ kind: "failed" });
    if (result.kind === "failed") expect(result.reason).toContain("its .git is a folder, not the file Baton made");
    expect(existsSync(hookMarker)).toBe(false);
  }, 180_000);
});

describe("no sandbox, no commands", () => {
  /** The sandbox as a server without bubblewrap has it: the check looks for a program that is not there. */
  const missing = (allowUnsandboxed = false): Sandbox => createSandbox({ programs: { bwrap: "/nonexistent/bwrap" }, allowUnsandboxed });

  it("refuses slot_run with a message naming the fix", async () => {
    const sandbox = missing();
    expect(await sandbox.status()).toEqual({ state: "unavailable", reason: "not installed: bubblewrap (/nonexistent/bwrap)" });
    const runtime = createWorkspaceRuntime({
      prisma: db.prisma,
      artifacts: new MemoryArtifactStore(),
      settings: { slotsDir: path.join(fixture.root, "slots"), repositoriesDir: path.join(fixture.root, "repos"), slotsPerRepository: 4 },
      sandbox,
    });
    let refusal: unknown = null;
    const agent: AgentRunner = {
      async run(request) {
        const tools = runtime.toolsFor(request)!;
        refusal = await Promise.resolve(tools.slot_run.execute!({ command: ["npm", "test"] }, callOptions)).catch(
          (error: unknown) => error,
        );
        return { kind: "ok", text: "done", summary: "done", files: [], untrusted: false, usage: NO_USAGE };
      },
    };
    await runtime.wrap(agent).run(stepRequest(1), recordingSink());
    expect(refusal).toBeInstanceOf(SandboxUnavailableError);
    expect((refusal as Error).message).toContain(SANDBOX_FIX);
    expect(SANDBOX_FIX).toBe("apt-get install bubblewrap socat ripgrep");
  });

  it("runs commands without it only when the operator says so", async () => {
    expect(await missing(true).status()).toEqual({ state: "unsandboxed", reason: "not installed: bubblewrap (/nonexistent/bwrap)" });
    const prepared = await missing(true).prepare({ slotPath: fixture.root, command: ["true"] });
    expect(prepared.sandboxed).toBe(false);
    prepared.release();
    // while the real one is ready here (CI installs it)
    expect(await defaultSandbox().status()).toEqual({ state: "ready" });
  });
});
