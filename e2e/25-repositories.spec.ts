/**
 * Repositories managed from the UI: an admin registers a repository (a work tree with
 * `main` checked out, made by the test) in Admin → Repositories, links a conversation
 * to it and its base branch from the conversation's settings, sees the header badge,
 * runs a code plan, sees the slots view, and fast-forwards main after confirming in a
 * dialog with the keyboard: the work tree's files on disk are the result.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Fixture", "-c", "user.email=fixture@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { NODE_ENV: "production", PATH: process.env.PATH, HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

/** A person's clone on the server: `main` checked out, clean, one commit. */
function checkedOutRepository(): { root: string; repoPath: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-e2e-checkout-"));
  const repoPath = path.join(root, "site");
  git(root, "init", "--quiet", "--initial-branch=main", repoPath);
  fs.writeFileSync(path.join(repoPath, "README.md"), "# Site\n");
  git(repoPath, "add", "-A");
  git(repoPath, "commit", "--quiet", "-m", "Initial commit");
  return { root, repoPath };
}

test("25. an admin registers a repository, links a conversation from its settings, and fast-forwards after confirming", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { context, page } = await adminContext(browser);
  const api = context.request;
  const { root, repoPath } = checkedOutRepository();
  const tag = Date.now().toString(36);
  const name = `site-${tag}`;

  // Admin → Repositories: register the folder
  await page.goto("/admin/repositories");
  const form = page.getByRole("form", { name: "Register a repository" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Path on the server").fill(repoPath);
  await form.getByRole("button", { name: "Register" }).click();
  await expect(form.getByRole("status")).toHaveText(`Registered ${name}.`);
  await expect(page.getByTestId("repositories")).toContainText(name);
  // a folder inside a repository is refused, naming why
  await form.getByLabel("Name").fill(`${name}-sub`);
  fs.mkdirSync(path.join(repoPath, "docs"));
  await form.getByLabel("Path on the server").fill(path.join(repoPath, "docs"));
  await form.getByRole("button", { name: "Register" }).click();
  await expect(form.getByRole("alert")).toContainText("register its root");

  // an agent that works in slots, alone in a new conversation
  const coder = `builder-${tag}`;
  const agent = await api.post("/api/admin/agents", {
    data: {
      handle: coder,
      name: "Builder",
      role: "sub_agent",
      systemPrompt: "You change the repository's files to do the step.",
      model: "offline",
      allowedTools: ["workspace"],
      skills: [],
      concurrency: 2,
    },
  });
  expect(agent.status()).toBe(201);
  const created = await api.post("/api/conversations", { data: { title: "Site notes", agentHandles: [coder] } });
  const conversationId = ((await created.json()) as { id: string }).id;

  // the conversation's settings link it to the repository and its base branch
  const conversation = new ConversationPage(page);
  await conversation.open(conversationId);
  await expect(page.getByTestId("repository-badge")).toHaveCount(0);
  await page.getByRole("button", { name: "Conversation settings" }).click();
  const settings = page.getByRole("dialog", { name: "Conversation settings" });
  const link = settings.getByTestId("repository-link");
  await link.getByLabel("Repository", { exact: true }).selectOption({ label: name });
  await expect(link.getByLabel("Base branch")).toHaveValue("main");
  await link.getByRole("button", { name: "Link" }).click();
  await expect(link.getByTestId("repository-linked")).toHaveText(`Code steps work on ${name}, from main.`);
  await settings.getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("repository-badge")).toHaveText(`${name}:main`);

  // a code plan: two steps in slots, then the commander's synthesis
  await conversation.send("Compare alpha and beta for the site notes.", "@offline sleep=500");
  await expect(conversation.planStatus).toHaveText("completed", { timeout: 90_000 });
  const workspace = page.getByTestId("plan-workspace");
  await expect(workspace).toContainText("2 branches from main");

  // the slots view: the repository's pool, none of it held by the ended plan
  const slotsPage = await context.newPage();
  await slotsPage.goto("/admin/repositories");
  const pool = slotsPage.getByTestId(`pool-${name}`);
  await expect(pool.getByTestId("pool-use")).toHaveText("0/4 in use");
  await slotsPage.close();

  // merge, then fast-forward main after confirming in the dialog, with the keyboard
  await workspace.getByRole("button", { name: "Merge branches" }).click();
  await expect(workspace.getByTestId("merge-result")).toContainText("Merged 2 branches");
  await workspace.getByRole("button", { name: "Fast-forward main…" }).focus();
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("dialog", { name: "Fast-forward main?" });
  await expect(confirm).toBeVisible();
  // Escape cancels and changes nothing
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  expect(fs.existsSync(path.join(repoPath, "findings", "alpha.md"))).toBe(false);
  await workspace.getByRole("button", { name: "Fast-forward main…" }).focus();
  await page.keyboard.press("Enter");
  await expect(confirm.getByRole("button", { name: "Fast-forward main", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(workspace.getByText("Accepted into main.")).toBeVisible();

  // the checked-out work tree was fast-forwarded: its files on disk are the result, nothing is left staged
  expect(fs.readFileSync(path.join(repoPath, "findings", "alpha.md"), "utf8")).toContain("# alpha");
  expect(fs.readFileSync(path.join(repoPath, "findings", "beta.md"), "utf8")).toContain("# beta");
  expect(git(repoPath, "status", "--porcelain", "--untracked-files=no")).toBe("");

  // the audit log names who accepted, on which repository
  await page.goto("/admin/audit");
  const accepted = page.locator('[data-testid="audit-event"][data-action="plan.accepted"]').first();
  await expect(accepted.getByTestId("audit-sentence")).toContainText(`accepted a plan's result: fast-forwarded ${name}:main`);

  await context.close();
  fs.rmSync(root, { recursive: true, force: true });
});
