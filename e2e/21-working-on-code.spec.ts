/**
 * Working on code: a conversation linked to a local bare repository, a plan whose two
 * parallel steps are done by an agent with the `workspace` capability, each in its own
 * slot on its own branch. The person reads a step's change in the drawer, merges the
 * branches, sees what happened, fast-forwards the base branch and downloads the patch;
 * a second plan whose steps edit the same file shows the conflict. The offline model
 * writes each step's findings to `findings/<item>.md` in its slot (`file=` overrides).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

/** git with an identity of its own and no user configuration, like the server's. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Fixture", "-c", "user.email=fixture@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { NODE_ENV: "production", PATH: process.env.PATH, HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

/** A bare repository with one commit on main: the local fixture the agents work on. */
function bareRepository(): { root: string; repoPath: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-e2e-repo-"));
  const repoPath = path.join(root, "notes.git");
  const seed = path.join(root, "seed");
  git(root, "init", "--quiet", "--bare", "--initial-branch=main", repoPath);
  git(root, "init", "--quiet", "--initial-branch=main", seed);
  fs.writeFileSync(path.join(seed, "README.md"), "# Release notes\n\nFindings go in findings/.\n");
  git(seed, "add", "-A");
  git(seed, "commit", "--quiet", "-m", "Initial commit");
  git(seed, "push", "--quiet", repoPath, "main");
  return { root, repoPath };
}

test("21. working on code: parallel steps produce branches, the drawer shows the diff, the person merges and accepts", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { context, page } = await adminContext(browser);
  const api = context.request;
  const { root, repoPath } = bareRepository();
  const initialMain = git(repoPath, "rev-parse", "main").trim();
  const tag = Date.now().toString(36);

  // an admin registers the repository and an agent that works in slots
  const registered = await api.post("/api/admin/repositories", { data: { name: `notes-${tag}`, path: repoPath } });
  expect(registered.status()).toBe(201);
  const repositoryId = ((await registered.json()) as { repository: { id: string } }).repository.id;
  const coder = `coder-${tag}`;
  const agent = await api.post("/api/admin/agents", {
    data: {
      handle: coder,
      name: "Coder",
      role: "sub_agent",
      systemPrompt: "You change the repository's files to do the step.",
      model: "offline",
      allowedTools: ["workspace"],
      skills: [],
      concurrency: 2,
    },
  });
  expect(agent.status()).toBe(201);

  // a conversation with only that agent (so the commander gives it both steps), linked to the repository
  const created = await api.post("/api/conversations", { data: { title: "Release notes", agentHandles: [coder] } });
  expect(created.status()).toBe(201);
  const conversationId = ((await created.json()) as { id: string }).id;
  const linked = await api.put(`/api/conversations/${conversationId}/repository`, { data: { repositoryId } });
  expect(linked.status()).toBe(200);

  const conversation = new ConversationPage(page);
  await conversation.open(conversationId);
  await conversation.send("Compare alpha and beta for the release notes.", "@offline sleep=1500");

  // two parallel workspace steps and the commander's synthesis
  await expect(conversation.planSteps).toHaveCount(3);
  await expect(page.locator('[data-testid="plan-step"][data-status="in_progress"]')).toHaveCount(2);
  await expect(conversation.planStatus).toHaveText("completed", { timeout: 90_000 });
  for (const index of [1, 2, 3]) await expect(conversation.step(index)).toHaveAttribute("data-status", "done");

  // each workspace step left a branch with its own commit, named by the step in trailers
  const workspace = page.getByTestId("plan-workspace");
  await expect(workspace).toContainText("2 branches from main");
  const planId = (await workspace.locator("code").first().textContent())!.replace(/^baton\/(.*)-1$/, "$1");
  for (const [step, item] of [
    [1, "alpha"],
    [2, "beta"],
  ] as const) {
    const branch = `baton/${planId}-${step}`;
    expect(git(repoPath, "show", `${branch}:findings/${item}.md`)).toContain(`# ${item}`);
    expect(git(repoPath, "log", "-1", "--format=%(trailers:key=Baton-Step,valueonly)", branch).trim()).toBe(String(step));
  }

  // the drawer shows step 1's change: branch, commit, stats, files and the highlighted diff
  await conversation.step(1).getByRole("button").click();
  const drawer = page.getByTestId("step-drawer");
  const change = drawer.getByTestId("step-change");
  await expect(change.getByTestId("change-branch")).toHaveText(`baton/${planId}-1`);
  await expect(change.getByTestId("change-stats")).toContainText("1 file(s) changed");
  await expect(change.getByRole("table", { name: "Changed files" })).toContainText("findings/alpha.md");
  await expect(change.getByTestId("change-diff")).toContainText("+# alpha");
  await expect(change.getByTestId("change-diff").locator(".hljs-addition").first()).toBeVisible();
  await expect(change).not.toContainText("findings/beta.md");
  await change.scrollIntoViewIfNeeded();
  await conversation.screenshot("working-on-code-diff");
  await drawer.getByRole("button", { name: "Close step details" }).click();

  // the person merges: both branches, into the plan's result branch
  await workspace.getByRole("button", { name: "Merge branches" }).click();
  const merged = workspace.getByTestId("merge-result");
  await expect(merged).toContainText("Merged 2 branches");
  await expect(merged).toContainText(`baton/${planId}-result`);
  await expect(merged).toContainText("findings/alpha.md");
  await expect(merged).toContainText("findings/beta.md");
  expect(git(repoPath, "rev-parse", "main").trim()).toBe(initialMain); // merging alone leaves main as it was
  await conversation.screenshot("working-on-code");

  // the patch is the merged change as text
  const patch = await api.get(`/api/conversations/${conversationId}/plans/${planId}/patch`);
  expect(patch.status()).toBe(200);
  expect(patch.headers()["content-type"]).toContain("text/x-patch");
  const patchText = await patch.text();
  expect(patchText).toContain("+++ b/findings/alpha.md");
  expect(patchText).toContain("+++ b/findings/beta.md");

  // accepting fast-forwards main to the result branch, once confirmed
  await workspace.getByRole("button", { name: "Fast-forward main…" }).click();
  await page.getByRole("dialog", { name: "Fast-forward main?" }).getByRole("button", { name: "Fast-forward main", exact: true }).click();
  await expect(workspace.getByText(/main is now at/)).toBeVisible();
  await expect(workspace.getByText("Accepted into main.")).toBeVisible();
  expect(git(repoPath, "rev-parse", "main").trim()).toBe(git(repoPath, "rev-parse", `baton/${planId}-result`).trim());
  expect(git(repoPath, "show", "main:findings/beta.md")).toContain("# beta");

  // a second plan whose two steps write the same file: merging shows the conflict, and changes nothing
  await conversation.send("Compare gamma and delta for the changelog.", "@offline sleep=500 file=notes.md");
  await expect(page.getByRole("combobox", { name: "Choose a plan" })).toBeVisible(); // the new plan is the one shown
  await expect(conversation.planStatus).toHaveText("completed", { timeout: 90_000 });
  const second = page.getByTestId("plan-workspace");
  await expect(second).not.toContainText(planId);
  await second.getByRole("button", { name: "Merge branches" }).click();
  const conflicted = second.getByTestId("merge-result");
  await expect(conflicted).toHaveAttribute("role", "alert");
  await expect(conflicted).toContainText("Conflict: nothing was merged");
  await expect(conflicted).toContainText("notes.md");
  await expect(second.getByRole("button", { name: /Fast-forward/ })).toHaveCount(0);
  const branches = git(repoPath, "branch", "--list", "baton/*-result");
  expect(branches.trim().split("\n")).toHaveLength(1); // only the first plan's result branch

  await context.close();
  fs.rmSync(root, { recursive: true, force: true });
});
