/**
 * What a person reads and does with a plan's code: a step's change, the plan's
 * branches, fast-forwarding the base branch (owners only, never over a moved base)
 * and the patch (members).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { agentProfile, recordingSink, runRequest } from "../agents/testing/agent-fixture.ts";
import type { AgentRunner } from "../executor/ports.ts";
import { createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";
import { fixtureRuntime, linkedConversation, workspacePlan } from "./testing/linked-conversation.ts";
import { git, resolveCommit } from "./git.ts";
import { mergePlanBranches } from "./merge.ts";
import { acceptPlanResult, getPlanWorkspace, getStepChange, planPatch } from "./review.ts";
import type { WorkspaceRuntime } from "./workspace-runner.ts";
import { BaseCheckoutDirtyError } from "./base-branch.ts";

const coder = agentProfile({ handle: "coder", allowedTools: ["workspace"] });
const callOptions = { toolCallId: "t1", messages: [] };

let db: TestDatabase;
let fixture: GitFixture;
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
  fixture = await createGitFixture({ "a.txt": "a\n", "b.txt": "b\n" });
  ({ conversationId } = await linkedConversation(db.prisma, fixture));
  planId = await workspacePlan(
    db.prisma,
    conversationId,
    [
      { title: "Edit a", input: "edit a" },
      { title: "Edit b", input: "edit b" },
    ],
    {
      title: "parallel edits",
    },
  );
  runtime = fixtureRuntime(db.prisma, fixture);
});
afterEach(async () => {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

function writer(writes: Record<string, string>): AgentRunner {
  return {
    async run(request) {
      const tools = runtime.toolsFor(request)!;
      for (const [file, content] of Object.entries(writes)) await tools.slot_write.execute!({ path: file, content }, callOptions);
      return { kind: "ok", text: "", summary: "edited", files: [], untrusted: false, usage: { tokensIn: 0, tokensOut: 0, cost: 0 } };
    },
  };
}

async function runStep(stepIndex: number, writes: Record<string, string>) {
  const request = runRequest({
    runId: `run-${stepIndex}`,
    conversationId,
    agent: coder,
    step: { planId, stepIndex, title: `Step ${stepIndex}` },
  });
  const result = await runtime.wrap(writer(writes)).run(request, recordingSink());
  expect(result.kind).toBe("ok");
}

/** The plan ends (its branches can be merged from now on). */
async function endPlan() {
  await db.prisma.plan.update({ where: { id: planId }, data: { status: "completed", endedAt: new Date() } });
}

/** The fixture's repository is replaced by a work tree with `main` checked out (a person's clone on the server). */
async function useCheckedOutRepository() {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
  fixture = await createGitFixture({ "a.txt": "a\n", "b.txt": "b\n" }, { checkedOut: true });
  ({ conversationId } = await linkedConversation(db.prisma, fixture));
  planId = await workspacePlan(db.prisma, conversationId, [{ title: "Edit a", input: "edit a" }]);
  runtime = fixtureRuntime(db.prisma, fixture);
}

async function person(role: "owner" | "member") {
  const user = await db.prisma.user.create({ data: { id: randomUUID(), name: role, email: `${role}-${randomUUID()}@example.com` } });
  await db.prisma.membership.create({ data: { conversationId, userId: user.id, role } });
  return { id: user.id, role: "member" as const };
}

describe("reviewing and accepting a plan's code", () => {
  it("shows a step's change: branch, its one commit, stats and the diff of that step only", async () => {
    await runStep(1, { "a.txt": "A\n" });
    await runStep(2, { "b.txt": "B\n" });
    const { change } = await getStepChange(db.prisma, { actor: await person("member"), planId, stepIndex: 1 });
    expect(change).toMatchObject({ branch: `baton/${planId}-1`, baseCommit: fixture.initialCommit });
    expect(change!.commits.map((commit) => commit.subject)).toEqual(["Step 1"]);
    expect(change!.stats).toMatchObject({ added: 1, deleted: 1, files: [{ path: "a.txt", status: "M" }] });
    expect(change!.diff).toContain("-a\n+A");
    expect(change!.diff).not.toContain("b.txt");
    const none = await getStepChange(db.prisma, { actor: await person("member"), planId, stepIndex: 7 });
    expect(none.change).toBeNull();
  });

  it("an owner fast-forwards the base branch to the merged result; a member may only download the patch", async () => {
    await runStep(1, { "a.txt": "A\n" });
    await runStep(2, { "b.txt": "B\n" });
    const owner = await person("owner");
    const member = await person("member");
    await expect(acceptPlanResult(db.prisma, { actor: owner, planId })).rejects.toMatchObject({ code: "conflict" }); // not merged yet
    await expect(mergePlanBranches(db.prisma, { actor: member, planId })).rejects.toThrow(
      "The plan is still running: merge its branches once it has ended.",
    );
    await endPlan();
    const merged = await mergePlanBranches(db.prisma, { actor: member, planId });
    expect(merged.ok).toBe(true);

    const before = await getPlanWorkspace(db.prisma, { actor: member, planId });
    expect(before).toMatchObject({ baseBranch: "main", canAccept: false, result: { accepted: false, canFastForward: true } });
    expect(before.branches.map((entry) => entry.branch)).toEqual([`baton/${planId}-1`, `baton/${planId}-2`]);

    const patch = await planPatch(db.prisma, { actor: member, planId });
    expect(patch.text).toContain("+++ b/a.txt");
    expect(patch.text).toContain("+++ b/b.txt");

    await expect(acceptPlanResult(db.prisma, { actor: member, planId })).rejects.toMatchObject({ code: "forbidden" });
    expect(await resolveCommit(fixture.repoPath, "refs/heads/main")).toBe(fixture.initialCommit);
    const accepted = await acceptPlanResult(db.prisma, { actor: owner, planId });
    expect(accepted).toEqual({ baseBranch: "main", from: fixture.initialCommit, to: merged.ok ? merged.commit : "" });
    expect(await showFile(fixture.repoPath, "main", "a.txt")).toBe("A\n");
    expect(await showFile(fixture.repoPath, "main", "b.txt")).toBe("B\n");
    expect((await getPlanWorkspace(db.prisma, { actor: owner, planId })).result).toMatchObject({ accepted: true, canFastForward: false });
    // written to the audit log: who, which repository, from which commit to which
    const audit = await db.prisma.auditEvent.findFirstOrThrow({ where: { action: "plan.accepted", conversationId } });
    expect(audit).toMatchObject({ actorId: owner.id, targetKind: "repository" });
    expect(audit.detail).toMatchObject({ branch: "main", from: fixture.initialCommit, to: accepted.to, planId, workTreeUpdated: false });
  });

  it("on a repository with main checked out and clean, updates that work tree: the files on disk are the result", async () => {
    await useCheckedOutRepository();
    await runStep(1, { "a.txt": "A\n", "new.txt": "new\n" });
    const owner = await person("owner");
    await endPlan();
    expect((await mergePlanBranches(db.prisma, { actor: owner, planId })).ok).toBe(true);
    const accepted = await acceptPlanResult(db.prisma, { actor: owner, planId });
    expect(await resolveCommit(fixture.repoPath, "HEAD")).toBe(accepted.to);
    expect(await readFile(path.join(fixture.repoPath, "a.txt"), "utf8")).toBe("A\n");
    expect(await readFile(path.join(fixture.repoPath, "new.txt"), "utf8")).toBe("new\n");
    // nothing staged or changed: the work tree matches its branch
    expect((await git(["status", "--porcelain"], { cwd: fixture.repoPath })).stdout).toBe("");
    const audit = await db.prisma.auditEvent.findFirstOrThrow({ where: { action: "plan.accepted", conversationId } });
    expect(audit.detail).toMatchObject({ workTreeUpdated: true, to: accepted.to });
  });

  it("on a repository with main checked out and changed, refuses naming the files and changes nothing", async () => {
    await useCheckedOutRepository();
    await runStep(1, { "a.txt": "A\n" });
    const owner = await person("owner");
    await endPlan();
    expect((await mergePlanBranches(db.prisma, { actor: owner, planId })).ok).toBe(true);
    await writeFile(path.join(fixture.repoPath, "b.txt"), "edited by a person\n");
    const refused = await acceptPlanResult(db.prisma, { actor: owner, planId }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BaseCheckoutDirtyError);
    expect(refused).toMatchObject({ code: "conflict", files: ["b.txt"] });
    expect((refused as Error).message).toContain("uncommitted changes (b.txt)");
    expect((refused as Error).message).not.toContain(fixture.repoPath);
    expect(await resolveCommit(fixture.repoPath, "refs/heads/main")).toBe(fixture.initialCommit);
    expect(await readFile(path.join(fixture.repoPath, "a.txt"), "utf8")).toBe("a\n");
    expect(await readFile(path.join(fixture.repoPath, "b.txt"), "utf8")).toBe("edited by a person\n");
    expect(await db.prisma.auditEvent.count({ where: { action: "plan.accepted", conversationId } })).toBe(0);
  });

  it("refuses to fast-forward a base branch that moved since the merge, and leaves it as it is", async () => {
    await runStep(1, { "a.txt": "A\n" });
    const owner = await person("owner");
    await endPlan();
    expect((await mergePlanBranches(db.prisma, { actor: owner, planId })).ok).toBe(true);
    // someone pushes to main meanwhile
    const elsewhere = path.join(fixture.root, "elsewhere");
    await git(["clone", "--quiet", fixture.repoPath, elsewhere], { cwd: fixture.root });
    await writeFile(path.join(elsewhere, "c.txt"), "c\n");
    await git(["add", "-A"], { cwd: elsewhere });
    await git(["commit", "--quiet", "-m", "meanwhile"], { cwd: elsewhere });
    await git(["push", "--quiet", "origin", "main"], { cwd: elsewhere });
    const moved = await resolveCommit(fixture.repoPath, "refs/heads/main");

    await expect(acceptPlanResult(db.prisma, { actor: owner, planId })).rejects.toMatchObject({ code: "conflict" });
    expect(await resolveCommit(fixture.repoPath, "refs/heads/main")).toBe(moved);
    expect((await getPlanWorkspace(db.prisma, { actor: owner, planId })).result).toMatchObject({ accepted: false, canFastForward: false });
  });

  it("shows nothing of a plan to someone outside its conversation", async () => {
    await runStep(1, { "a.txt": "A\n" });
    const outsider = { id: randomUUID(), role: "admin" as const };
    for (const read of [
      () => getStepChange(db.prisma, { actor: outsider, planId, stepIndex: 1 }),
      () => getPlanWorkspace(db.prisma, { actor: outsider, planId }),
      () => planPatch(db.prisma, { actor: outsider, planId }),
      () => acceptPlanResult(db.prisma, { actor: outsider, planId }),
    ]) {
      await expect(read()).rejects.toMatchObject({ code: "not_found" });
    }
  });
});
