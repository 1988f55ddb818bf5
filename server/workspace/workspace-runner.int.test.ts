/**
 * A workspace step run end to end around a scripted agent: the slot is made before
 * the run, the agent gets the slot tools, and the change (commit, branch, diff stats
 * artifact) is the step's result. The agent is scripted so the test is about the
 * hook, not a model.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { MemoryArtifactStore } from "../agents/memory-stores.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "../agents/testing/agent-fixture.ts";
import { startFakeModelServer } from "../agents/testing/fake-model-server.ts";
import { readFile } from "node:fs/promises";
import type { AgentRunner, AgentRunResult, RunRequest } from "../executor/ports.ts";
import { commitSubjects, createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";
import { fixtureRuntime, linkedConversation, workspacePlan } from "./testing/linked-conversation.ts";
import { git } from "./git.ts";
import { mergePlanBranches } from "./merge.ts";
import { workspaceCapability, type WorkspaceRuntime } from "./workspace-runner.ts";

const callOptions = { toolCallId: "t1", messages: [] };
const coder = agentProfile({ handle: "coder", allowedTools: ["workspace", "command:node -e", "read_file"] });

let db: TestDatabase;
let fixture: GitFixture;
let artifacts: MemoryArtifactStore;
let runtime: WorkspaceRuntime;
let conversationId: string;
let planId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  fixture = await createGitFixture({ "a.txt": "a\n", "b.txt": "b\n", "shared.txt": "one\ntwo\n" });
  ({ conversationId } = await linkedConversation(db.prisma, fixture));
  planId = await workspacePlan(
    db.prisma,
    conversationId,
    [
      { title: "Edit a", input: "edit a" },
      { title: "Edit b", input: "edit b" },
      { title: "Combine", input: "combine", waitFor: [1, 2] },
    ],
    { title: "parallel edits" },
  );
  artifacts = new MemoryArtifactStore();
  runtime = fixtureRuntime(db.prisma, fixture, { artifacts });
});
afterEach(async () => {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

/** An agent that writes files through the slot tools it was given, then finishes. */
function scriptedAgent(writes: Record<string, string>, seen: RunRequest[] = [], workspace?: WorkspaceRuntime): AgentRunner {
  return {
    async run(request): Promise<AgentRunResult> {
      seen.push(request);
      const tools = (workspace ?? runtime).toolsFor(request);
      if (!tools)
        return {
          kind: "ok",
          text: "no slot",
          summary: "no slot",
          files: [],
          untrusted: false,
          usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
        };
      for (const [file, content] of Object.entries(writes)) await tools.slot_write.execute!({ path: file, content }, callOptions);
      return {
        kind: "ok",
        text: "done",
        summary: "Edited the files.",
        files: [],
        untrusted: false,
        usage: { tokensIn: 1, tokensOut: 1, cost: 0 },
      };
    },
  };
}

function stepRequest(stepIndex: number, runId = `run-${stepIndex}`): RunRequest {
  return runRequest({ runId, conversationId, agent: coder, step: { planId, stepIndex, title: `Step ${stepIndex}` } });
}

describe("workspace steps", () => {
  it("reads the capability and the command allow-list from the agent's allow-list", () => {
    expect(workspaceCapability(coder)).toEqual({ enabled: true, commands: ["node -e"] });
    expect(workspaceCapability(agentProfile())).toEqual({ enabled: false, commands: [] });
  });

  it("runs a step in its slot: the change is committed on its branch and named downstream", async () => {
    const seen: RunRequest[] = [];
    const sink = recordingSink();
    const result = await runtime.wrap(scriptedAgent({ "a.txt": "A\n", "new/file.ts": "export {};\n" }, seen)).run(stepRequest(1), sink);
    expect(result.kind).toBe("ok");
    if (result.kind !== "ok") return;
    const branch = `baton/${planId}-1`;
    expect(seen[0].input).toContain(`on branch ${branch}`);
    expect(result.summary).toMatch(
      new RegExp(
        `^Edited the files\\.\\n\\nBranch ${branch} at [0-9a-f]{12}: 2 file\\(s\\) changed, \\+2 −1 \\(a\\.txt, new/file\\.ts\\)\\.$`,
      ),
    );
    expect(result.files).toEqual(["changes/step-1.md"]);
    expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..${branch}`)).toEqual(["Step 1"]);
    const { stdout } = await git(["log", "-1", "--format=%an%n%B", branch], { cwd: fixture.repoPath });
    expect(stdout).toContain("@coder (Baton step 1)");
    expect(stdout).toContain(`Baton-Plan: ${planId}`);
    expect(stdout).toContain("Baton-Run: run-1");
    const report = await artifacts.read({ conversationId, name: "changes/step-1.md" });
    expect(report?.record).toMatchObject({ untrusted: false });
    expect(new TextDecoder().decode(report!.content)).toContain("| A | `new/file.ts` | +1 −0 |");
    expect(sink.phases()).toContain("workspace");
  });

  it("starts a step that waits for two workspace steps from the merge of their branches", async () => {
    await runtime.wrap(scriptedAgent({ "a.txt": "A\n" })).run(stepRequest(1), recordingSink());
    await runtime.wrap(scriptedAgent({ "b.txt": "B\n" })).run(stepRequest(2), recordingSink());
    const result = await runtime.wrap(scriptedAgent({ "c.txt": "C\n" })).run(stepRequest(3), recordingSink());
    expect(result.kind).toBe("ok");
    const branch = `baton/${planId}-3`;
    expect(await showFile(fixture.repoPath, branch, "a.txt")).toBe("A\n");
    expect(await showFile(fixture.repoPath, branch, "b.txt")).toBe("B\n");
    expect(await showFile(fixture.repoPath, branch, "c.txt")).toBe("C\n");
  });

  it("fails a step whose upstream branches edit the same lines, naming the file and hunk", async () => {
    await runtime.wrap(scriptedAgent({ "shared.txt": "ONE\ntwo\n" })).run(stepRequest(1), recordingSink());
    await runtime.wrap(scriptedAgent({ "shared.txt": "uno\ntwo\n" })).run(stepRequest(2), recordingSink());
    const seen: RunRequest[] = [];
    const result = await runtime.wrap(scriptedAgent({}, seen)).run(stepRequest(3), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: false });
    expect(result.kind === "failed" && result.reason).toBe("the upstream branches conflict:\nshared.txt: 1 conflicting hunk(s) at line 1");
    expect(seen).toHaveLength(0);
  });

  it("a run that ends again after a takeover resumes the slot and commits nothing twice", async () => {
    const first = await runtime.wrap(scriptedAgent({ "a.txt": "A\n" })).run(stepRequest(1, "run-x"), recordingSink());
    // another process takes the step over: a fresh runtime, the same database and disk
    const other = fixtureRuntime(db.prisma, fixture, { artifacts });
    const again = await other.wrap(scriptedAgent({ "a.txt": "A\n" }, [], other)).run(stepRequest(1, "run-x"), recordingSink());
    expect(again.kind === "ok" && again.summary).toBe(first.kind === "ok" && first.summary);
    expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..baton/${planId}-1`)).toEqual(["Step 1"]);
    expect(await db.prisma.slot.count({ where: { planId } })).toBe(1);
  });

  it("leaves runs of agents without the capability, and runs outside plans, alone", async () => {
    const plain = runRequest({ conversationId, agent: agentProfile(), step: { planId, stepIndex: 1, title: "x" } });
    const mention = runRequest({ conversationId, agent: coder });
    for (const request of [plain, mention]) {
      const result = await runtime.wrap(scriptedAgent({ "a.txt": "A\n" })).run(request, recordingSink());
      expect(result.kind === "ok" && result.summary).toBe("no slot");
    }
    expect(await db.prisma.slot.count()).toBe(0);
  });

  it("marks the change untrusted once a command's output reached the agent", async () => {
    const agent: AgentRunner = {
      async run(request) {
        await runtime.toolsFor(request)!.slot_run.execute!({ command: ["node", "-e", "console.log('ok')"] }, callOptions);
        return { kind: "ok", text: "", summary: "ran", files: [], untrusted: false, usage: { tokensIn: 0, tokensOut: 0, cost: 0 } };
      },
    };
    const result = await runtime.wrap(agent).run(stepRequest(1), recordingSink());
    expect(result).toMatchObject({ kind: "ok", untrusted: true });
    expect((await artifacts.read({ conversationId, name: "changes/step-1.md" }))?.record.untrusted).toBe(true);
  });

  it("through the real run loop: the model is given the slot tools, and what it writes is committed", async () => {
    const server = await startFakeModelServer();
    try {
      const { runner } = testRuntime({
        env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL },
        deps: { artifacts, extraTools: runtime.toolsFor },
      });
      server.script(
        {
          kind: "tools",
          calls: [{ id: "c1", name: "slot_edit", args: JSON.stringify({ path: "a.txt", old_text: "a", new_text: "alpha" }) }],
        },
        { kind: "tools", calls: [{ id: "c2", name: "finish", args: JSON.stringify({ summary: "Renamed a.", files: [] }) }] },
      );
      const agent = { ...coder, model: "openai:gpt-test" };
      const request = runRequest({ runId: "run-real", conversationId, agent, step: { planId, stepIndex: 1, title: "Rename" } });
      const result = await runtime.wrap(runner).run(request, recordingSink());
      expect(result).toMatchObject({ kind: "ok" });
      expect(result.kind === "ok" && result.summary).toMatch(/^Renamed a\.\n\nBranch baton\/\S+-1 at [0-9a-f]{12}: 1 file\(s\) changed/);
      const offered = JSON.stringify(server.requests[0].body.tools);
      for (const name of ["slot_list", "slot_read", "slot_write", "slot_edit", "slot_search", "slot_diff", "slot_run"])
        expect(offered).toContain(name);
      expect(await showFile(fixture.repoPath, `baton/${planId}-1`, "a.txt")).toBe("alpha\n");
      const slot = await db.prisma.slot.findFirstOrThrow({ where: { planId } });
      expect(await readFile(path.join(slot.path, "a.txt"), "utf8")).toBe("alpha\n");
    } finally {
      await server.close();
    }
  });

  describe("merging the plan's branches", () => {
    async function memberActor() {
      const user = await db.prisma.user.create({ data: { id: randomUUID(), name: "Ada", email: `ada-${randomUUID()}@example.com` } });
      await db.prisma.membership.create({ data: { conversationId, userId: user.id } });
      return { id: user.id, role: "member" as const };
    }

    /** merging is for ended plans */
    async function endPlan() {
      await db.prisma.plan.update({ where: { id: planId }, data: { status: "completed", endedAt: new Date() } });
    }

    it("merges parallel branches into the result branch", async () => {
      await runtime.wrap(scriptedAgent({ "a.txt": "A\n" })).run(stepRequest(1), recordingSink());
      await runtime.wrap(scriptedAgent({ "b.txt": "B\n" })).run(stepRequest(2), recordingSink());
      await endPlan();
      const result = await mergePlanBranches(db.prisma, { actor: await memberActor(), planId });
      expect(result).toMatchObject({ ok: true, branch: `baton/${planId}-result`, merged: [`baton/${planId}-1`, `baton/${planId}-2`] });
      expect(result.ok && result.stats.files.map((file) => file.path)).toEqual(["a.txt", "b.txt"]);
      expect(await showFile(fixture.repoPath, `baton/${planId}-result`, "a.txt")).toBe("A\n");
      expect(await showFile(fixture.repoPath, `baton/${planId}-result`, "b.txt")).toBe("B\n");
    });

    it("reports a conflict by file and hunk and leaves no result branch", async () => {
      await runtime.wrap(scriptedAgent({ "shared.txt": "ONE\ntwo\n" })).run(stepRequest(1), recordingSink());
      await runtime.wrap(scriptedAgent({ "shared.txt": "uno\ntwo\n" })).run(stepRequest(2), recordingSink());
      await endPlan();
      const result = await mergePlanBranches(db.prisma, { actor: await memberActor(), planId });
      expect(result).toEqual({
        ok: false,
        branch: `baton/${planId}-result`,
        conflicts: [{ path: "shared.txt", hunks: [{ line: 1, ours: ["ONE"], theirs: ["uno"] }] }],
      });
      const probe = await git(["rev-parse", "--verify", "--quiet", `refs/heads/baton/${planId}-result`], {
        cwd: fixture.repoPath,
        okExitCodes: [1],
      });
      expect(probe.exitCode).toBe(1);
    });

    it("refuses a non-member as if the plan did not exist", async () => {
      await expect(mergePlanBranches(db.prisma, { actor: { id: randomUUID(), role: "admin" }, planId })).rejects.toMatchObject({
        code: "not_found",
      });
    });
  });
});
