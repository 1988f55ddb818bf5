/**
 * Slots across a real crash: an executor process is SIGKILLed while two workspace
 * steps are live in their slots (their files written, not yet committed); a new
 * process on the same data directory resumes the same slots — same rows, same
 * worktrees, same branches — and every step's change is committed exactly once.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { PlanDTO } from "../protocol/dto.ts";
import { ExecutorProcess } from "../executor/testing/process-handle.ts";
import { commitSubjects, createGitFixture, showFile, type GitFixture } from "./testing/git-fixture.ts";
import { git } from "./git.ts";
import { waitFor } from "../testing/wait-for.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "baton-slots-crash-"));
const env = { BATON_DATA_DIR: dataDir, DATABASE_URL: "", BATON_TEST_WORKSPACE: "1" };
const processes: ExecutorProcess[] = [];
let repo: GitFixture | undefined;

afterAll(async () => {
  for (const child of processes) await child.kill();
  await repo?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

interface SlotRow {
  id: string;
  stepIndex: number;
  branch: string;
  path: string;
  status: string;
  baseCommit: string;
  headCommit: string | null;
  createdAt: string;
}

it("resumes the slots of steps live at a SIGKILL, not recreating them, and commits each change once", async () => {
  repo = await createGitFixture({ "README.md": "hello\n" });
  // on the first process the parallel steps hold until it is killed (hold_on, directive-script.ts)
  const first = await ExecutorProcess.start({ ...env, BATON_INSTANCE_ID: "slots-first" });
  processes.push(first);
  const conversation = await first.request<{ id: string }>({
    type: "conversation",
    title: "crash",
    agents: ["researcher", "analyst", "writer"],
  });
  await first.request({
    type: "workspace",
    conversationId: conversation.id,
    repoPath: repo.repoPath,
    agents: ["researcher", "analyst", "writer"],
  });
  const plan = await first.request<PlanDTO>({
    type: "submit",
    conversationId: conversation.id,
    raw: {
      title: "code",
      max_parallel: 2,
      steps: [
        { index: 1, title: "alpha", assignee: "researcher", input: "write=alpha.txt hold_on=slots-first sleep=10", wait_for: [] },
        { index: 2, title: "beta", assignee: "analyst", input: "write=beta.txt hold_on=slots-first sleep=10", wait_for: [] },
        { index: 3, title: "gamma", assignee: "writer", input: "write=gamma.txt sleep=10", wait_for: [1, 2] },
      ],
    },
  });

  // both parallel steps are live in their slots, their files written and not committed: kill hard
  const before = await waitFor(async () => {
    const slots = await first.request<SlotRow[]>({ type: "slots", planId: plan.id });
    const ready =
      slots.length === 2 &&
      slots.every((slot) => slot.baseCommit !== "" && existsSync(path.join(slot.path, slot.stepIndex === 1 ? "alpha.txt" : "beta.txt")));
    return ready ? slots : undefined;
  }, 90_000);
  const current = await first.request<PlanDTO>({ type: "plan", planId: plan.id });
  expect(current.steps.filter((step) => step.status === "in_progress").map((step) => step.index)).toEqual([1, 2]);
  await first.kill();
  for (const slot of before) expect(await commitSubjects(repo.repoPath, `${slot.baseCommit}..${slot.branch}`)).toEqual([]);

  const second = await ExecutorProcess.start(env);
  processes.push(second);
  const final = await waitFor(async () => {
    const now = await second.request<PlanDTO>({ type: "plan", planId: plan.id });
    return now.status === "running" ? undefined : now;
  }, 90_000);
  expect(final.status).toBe("completed");
  const runs = await second.request<{ status: string }[]>({ type: "runs", planId: plan.id });
  expect(runs.filter((run) => run.status === "lost").length).toBe(2);

  // the same rows, worktrees and branches: resumed, not recreated
  const after = await second.request<SlotRow[]>({ type: "slots", planId: plan.id });
  expect(after).toHaveLength(3);
  for (const slot of before) {
    expect(after.find((row) => row.stepIndex === slot.stepIndex)).toMatchObject({
      id: slot.id,
      path: slot.path,
      branch: slot.branch,
      baseCommit: slot.baseCommit,
      createdAt: slot.createdAt,
      status: "active",
    });
  }
  const worktrees = (await git(["worktree", "list", "--porcelain"], { cwd: repo.repoPath })).stdout;
  for (const slot of after) expect(worktrees.split(`branch refs/heads/${slot.branch}\n`).length - 1).toBe(1);

  // each step's change committed exactly once, on its own branch; the waiting step starts from both
  const [alpha, beta, gamma] = after;
  expect(await commitSubjects(repo.repoPath, `${repo.initialCommit}..${alpha.branch}`)).toEqual(["alpha"]);
  expect(await commitSubjects(repo.repoPath, `${repo.initialCommit}..${beta.branch}`)).toEqual(["beta"]);
  expect(await commitSubjects(repo.repoPath, `${gamma.baseCommit}..${gamma.branch}`)).toEqual(["gamma"]);
  expect(await showFile(repo.repoPath, gamma.branch, "alpha.txt")).toBe("alpha\n");
  expect(await showFile(repo.repoPath, gamma.branch, "beta.txt")).toBe("beta\n");
  for (const slot of after) expect(slot.headCommit).toBe((await git(["rev-parse", slot.branch], { cwd: repo.repoPath })).stdout.trim());
  await second.stop();
});
