import { expect, test } from "@playwright/test";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

test("admin: edit an agent, filter plan history, open a plan timeline, see usage", async ({ browser }) => {
  const { context, page } = await adminContext(browser);

  await page.goto("/admin/agents");
  await page.getByRole("button", { name: /@researcher/ }).click();
  const form = page.getByRole("form", { name: "Edit @researcher" });
  await form.getByLabel("Concurrency limit").fill("3");
  await form.getByLabel("Skills").fill("web research, citations");
  await form.getByLabel("Escalation model").fill("offline:strong");
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toHaveText("Saved.");
  await page.screenshot({ path: screenshotPath("admin-agents") });
  await page.reload();
  await page.getByRole("button", { name: /@researcher/ }).click();
  await expect(page.getByRole("form", { name: "Edit @researcher" }).getByLabel("Concurrency limit")).toHaveValue("3");
  await expect(page.getByRole("form", { name: "Edit @researcher" }).getByLabel("Escalation model")).toHaveValue("offline:strong");

  await page.goto("/admin/plans?status=completed");
  const rows = page.getByTestId("plan-history").locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId("plan-history").getByText("failed", { exact: true })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("admin-plan-history") });

  await rows.first().getByRole("link").first().click();
  const timeline = page.getByTestId("plan-timeline");
  await expect(timeline).toBeVisible();
  await expect(timeline.locator('[data-critical="true"]').first()).toBeVisible();
  await page.screenshot({ path: screenshotPath("admin-plan-timeline") });

  await page.goto("/admin/usage");
  await expect(page.getByRole("region", { name: "By model" })).toBeVisible();
  await expect(page.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.getByRole("region", { name: "By why the model was chosen" })).toBeVisible();
  await page.screenshot({ path: screenshotPath("admin-usage") });

  // the effort mapping: a model this server cannot run is refused, an offline alias kept
  await page.goto("/admin/providers");
  const effort = page.getByTestId("effort-models");
  await effort.getByLabel("Deep steps").fill("gemini:pro");
  await effort.getByRole("button", { name: "Save" }).click();
  await expect(effort.getByText(/Unknown model id "gemini:pro"/)).toBeVisible();
  await effort.getByLabel("Deep steps").fill("offline:deep");
  await effort.getByRole("button", { name: "Save" }).click();
  await expect(effort.getByRole("status")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByTestId("effort-models").getByLabel("Deep steps")).toHaveValue("offline:deep");
  await expect(page.getByTestId("effort-models").getByLabel("Light steps")).toHaveValue("");

  await page.goto("/admin/invites");
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = page.getByTestId("invite-link").first();
  await expect(link).toHaveValue(/\/sign-up\?invite=/);
  const address = await link.inputValue();

  // revoking asks once more; the link then says so, and signing up through it fails
  const newest = page.getByTestId("invite").first();
  await newest.getByRole("button", { name: /^Revoke the invite link/ }).click();
  await newest.getByRole("group", { name: "Revoke this invite link for good?" }).getByRole("button", { name: "Revoke for good" }).click();
  await expect(newest).toHaveAttribute("data-state", "revoked");
  await expect(newest.getByTestId("invite-link")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("invite").first()).toHaveAttribute("data-state", "revoked");
  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  await strangerPage.goto(address);
  await expect(strangerPage.getByText("This invite link is used up, has expired or was revoked.")).toBeVisible();
  await stranger.close();

  await page.goto("/admin/audit");
  await expect(
    page.getByTestId("audit-sentence").filter({ hasText: "Ada Admin revoked an invite link for a member." }).first(),
  ).toBeVisible();
  await context.close();
});
