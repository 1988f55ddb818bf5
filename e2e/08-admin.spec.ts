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
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toHaveText("Saved.");
  await page.screenshot({ path: screenshotPath("admin-agents") });
  await page.reload();
  await page.getByRole("button", { name: /@researcher/ }).click();
  await expect(page.getByRole("form", { name: "Edit @researcher" }).getByLabel("Concurrency limit")).toHaveValue("3");

  await page.goto("/admin/plans?status=completed");
  const rows = page.getByTestId("plan-history").locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId("plan-history").getByText("failed", { exact: true })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("admin-plan-history") });

  await rows.first().getByRole("link").click();
  const timeline = page.getByTestId("plan-timeline");
  await expect(timeline).toBeVisible();
  await expect(timeline.locator('[data-critical="true"]').first()).toBeVisible();
  await page.screenshot({ path: screenshotPath("admin-plan-timeline") });

  await page.goto("/admin/usage");
  await expect(page.getByRole("region", { name: "By model" })).toBeVisible();
  await expect(page.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.screenshot({ path: screenshotPath("admin-usage") });

  await page.goto("/admin/invites");
  await page.getByRole("button", { name: "Create invite link" }).click();
  await expect(page.getByTestId("invite-link").first()).toHaveValue(/\/sign-up\?invite=/);
  await context.close();
});
