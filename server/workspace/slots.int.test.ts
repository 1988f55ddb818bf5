import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { commitSlot, diffStats, ensureSlot, mergeCommits, MergeConflictError, removeSlot, setBranch } from "./slots.ts";
import { git, resolveCommit } from "./git.ts";
import { commitSubjects, createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";

const FILES = { "a.txt": "alpha\none\ntwo\n", "b.txt": "beta\n", "src/shared.ts": "export const value = 1;\nexport const other = 2;\n" };

let fixture: GitFixture;
beforeEach(async () => {
  fixture = await createGitFixture(FILES);
});
afterEach(async () => {
  await fixture.cleanup();
});

function slotInput(stepId: string, base: Parameters<typeof ensureSlot>[0]["base"] = { commit: "main" }) {
  return { repoPath: fixture.repoPath, slotsRoot: fixture.slotsRoot, planId: "plan1", stepId, base };
}

async function stepWrites(stepId: string, file: string, content: string, runId = `run-${stepId}`) {
  const slot = await ensureSlot(slotInput(stepId));
  await writeFile(path.join(slot.path, file), content);
  const committed = await commitSlot({
    slotPath: slot.path,
    planId: "plan1",
    stepId,
    runId,
    agentHandle: "coder",
    message: `Step ${stepId}`,
  });
  return { slot, committed };
}

describe("slots", () => {
  it("creates a worktree on baton/<plan>-<step> from the base commit", async () => {
    const slot = await ensureSlot(slotInput("s1"));
    expect(slot).toMatchObject({
      branch: "baton/plan1-s1",
      resumed: false,
      baseCommit: fixture.initialCommit,
      headCommit: fixture.initialCommit,
    });
    expect(await readFile(path.join(slot.path, "a.txt"), "utf8")).toBe(FILES["a.txt"]);
    expect(await resolveCommit(fixture.repoPath, "refs/heads/baton/plan1-s1")).toBe(fixture.initialCommit);
  });

  it("commits with the step in the author and trailers, and reports diff stats", async () => {
    const { slot, committed } = await stepWrites("s1", "a.txt", "alpha\nONE\ntwo\nthree\n");
    expect(committed.created).toBe(true);
    const { stdout } = await git(["log", "-1", "--format=%an%n%B", "baton/plan1-s1"], { cwd: fixture.repoPath });
    expect(stdout).toContain("@coder (Baton step s1)");
    expect(stdout).toContain("Baton-Plan: plan1");
    expect(stdout).toContain("Baton-Step: s1");
    expect(stdout).toContain("Baton-Run: run-s1");
    const stats = await diffStats({ cwd: fixture.repoPath, from: slot.baseCommit, to: committed.commit });
    expect(stats.files).toEqual([{ path: "a.txt", status: "M", added: 2, deleted: 1, binary: false }]);
    expect(stats).toMatchObject({ added: 2, deleted: 1 });
  });

  it("commits nothing when the step changed nothing", async () => {
    const slot = await ensureSlot(slotInput("s1"));
    const committed = await commitSlot({
      slotPath: slot.path,
      planId: "plan1",
      stepId: "s1",
      runId: "r",
      agentHandle: "coder",
      message: "x",
    });
    expect(committed).toEqual({ commit: fixture.initialCommit, created: false });
  });

  it("merges two parallel branches that edit different files", async () => {
    await stepWrites("s1", "a.txt", "alpha changed\n");
    await stepWrites("s2", "b.txt", "beta changed\n");
    const merged = await mergeCommits({ repoPath: fixture.repoPath, commits: ["baton/plan1-s1", "baton/plan1-s2"], message: "Merge" });
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    await setBranch({ repoPath: fixture.repoPath, branch: "baton/plan1-result", commit: merged.commit });
    expect(await showFile(fixture.repoPath, "baton/plan1-result", "a.txt")).toBe("alpha changed\n");
    expect(await showFile(fixture.repoPath, "baton/plan1-result", "b.txt")).toBe("beta changed\n");
    expect(await showFile(fixture.repoPath, "baton/plan1-result", "src/shared.ts")).toBe(FILES["src/shared.ts"]);
  });

  it("reports two branches editing the same lines as a conflict naming the file and hunk", async () => {
    await stepWrites("s1", "src/shared.ts", "export const value = 10;\nexport const other = 2;\n");
    await stepWrites("s2", "src/shared.ts", "export const value = 20;\nexport const other = 2;\n");
    await stepWrites("s3", "b.txt", "fine\n");
    const merged = await mergeCommits({
      repoPath: fixture.repoPath,
      commits: ["baton/plan1-s3", "baton/plan1-s1", "baton/plan1-s2"],
      message: "Merge",
    });
    expect(merged).toEqual({
      ok: false,
      conflicts: [
        { path: "src/shared.ts", hunks: [{ line: 1, ours: ["export const value = 10;"], theirs: ["export const value = 20;"] }] },
      ],
    });
  });

  it("starts a downstream slot from the merge of its upstream branches", async () => {
    await stepWrites("s1", "a.txt", "from s1\n");
    await stepWrites("s2", "b.txt", "from s2\n");
    const slot = await ensureSlot(slotInput("s3", { mergeOf: ["baton/plan1-s1", "baton/plan1-s2"], fallback: "main" }));
    expect(await readFile(path.join(slot.path, "a.txt"), "utf8")).toBe("from s1\n");
    expect(await readFile(path.join(slot.path, "b.txt"), "utf8")).toBe("from s2\n");
    expect(slot.baseCommit).toBe(slot.headCommit);
  });

  it("refuses a downstream slot whose upstream branches conflict", async () => {
    await stepWrites("s1", "a.txt", "one way\n");
    await stepWrites("s2", "a.txt", "another way\n");
    const attempt = ensureSlot(slotInput("s3", { mergeOf: ["baton/plan1-s1", "baton/plan1-s2"], fallback: "main" }));
    await expect(attempt).rejects.toBeInstanceOf(MergeConflictError);
    await expect(attempt).rejects.toThrow(/a\.txt/);
    expect(await resolveCommit(fixture.repoPath, "refs/heads/baton/plan1-s3")).toBeNull();
  });

  describe("resume after a crash", () => {
    it("reuses the live worktree: uncommitted work is kept and committed once", async () => {
      const first = await ensureSlot(slotInput("s1"));
      await writeFile(path.join(first.path, "a.txt"), "work in progress\n");
      // the process dies here, before the executor committed; another one takes over
      const again = await ensureSlot(slotInput("s1"));
      expect(again).toMatchObject({ path: first.path, branch: first.branch, resumed: true, baseCommit: fixture.initialCommit });
      expect(await readFile(path.join(again.path, "a.txt"), "utf8")).toBe("work in progress\n");
      const committed = await commitSlot({
        slotPath: again.path,
        planId: "plan1",
        stepId: "s1",
        runId: "r1",
        agentHandle: "coder",
        message: "Step s1",
      });
      expect(committed.created).toBe(true);
      expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..baton/plan1-s1`)).toEqual(["Step s1"]);
    });

    it("a commit made before the crash is neither lost nor doubled", async () => {
      const { slot, committed } = await stepWrites("s1", "a.txt", "done\n", "r1");
      // crash after the commit, before the executor recorded it: the run end happens again
      const again = await ensureSlot(slotInput("s1"));
      expect(again).toMatchObject({ resumed: true, headCommit: committed.commit, baseCommit: slot.baseCommit });
      const second = await commitSlot({
        slotPath: again.path,
        planId: "plan1",
        stepId: "s1",
        runId: "r1",
        agentHandle: "coder",
        message: "Step s1",
      });
      expect(second).toEqual({ commit: committed.commit, created: false });
      expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..baton/plan1-s1`)).toEqual(["Step s1"]);
    });

    it("re-attaches the branch when the worktree folder was lost, without recreating the branch", async () => {
      const { slot, committed } = await stepWrites("s1", "a.txt", "done\n", "r1");
      await rm(slot.path, { recursive: true, force: true });
      const again = await ensureSlot(slotInput("s1"));
      expect(again).toMatchObject({ path: slot.path, resumed: true, headCommit: committed.commit, baseCommit: fixture.initialCommit });
      expect(await readFile(path.join(again.path, "a.txt"), "utf8")).toBe("done\n");
    });
  });

  it("removes a slot, and with deleteBranch its branch; twice is harmless", async () => {
    const slot = await ensureSlot(slotInput("s1"));
    await removeSlot({ repoPath: fixture.repoPath, slotsRoot: fixture.slotsRoot, planId: "plan1", stepId: "s1", deleteBranch: false });
    expect(existsSync(slot.path)).toBe(false);
    expect(await resolveCommit(fixture.repoPath, "refs/heads/baton/plan1-s1")).not.toBeNull();
    await removeSlot({ repoPath: fixture.repoPath, slotsRoot: fixture.slotsRoot, planId: "plan1", stepId: "s1", deleteBranch: true });
    await removeSlot({ repoPath: fixture.repoPath, slotsRoot: fixture.slotsRoot, planId: "plan1", stepId: "s1", deleteBranch: true });
    expect(await resolveCommit(fixture.repoPath, "refs/heads/baton/plan1-s1")).toBeNull();
  });
});
