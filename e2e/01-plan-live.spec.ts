import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

test("1. sign up, create a conversation, ask for a comparison: the plan runs live and the synthesis appears", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  await page.screenshot({ path: screenshotPath("home") });

  await conversation.create("Pick a database");
  await conversation.send("Compare Postgres, MySQL and SQLite for a small team.", "@offline sleep=1500");

  // the commander's plan: one step per item plus a synthesis step, drawn live
  await expect(conversation.planSteps).toHaveCount(4);
  await expect(page.locator('[data-testid="plan-step"][data-status="in_progress"]').first()).toBeVisible();
  await expect(
    page
      .getByTestId("message")
      .filter({ has: page.getByText("step", { exact: true }) })
      .first(),
  ).toBeVisible();
  await conversation.screenshot("plan-running");

  await expect(conversation.planStatus).toHaveText("completed", { timeout: 60_000 });
  for (let index = 1; index <= 4; index += 1) await expect(conversation.step(index)).toHaveAttribute("data-status", "done");
  const last = conversation.messages.last();
  await expect(last).toHaveAttribute("data-author", "commander");
  await conversation.screenshot("plan-completed");

  // the step detail: input as rendered, execution log, runs
  await conversation.step(1).getByRole("button").click();
  const drawer = page.getByTestId("step-drawer");
  await expect(drawer.getByTestId("rendered-input")).toContainText("Postgres");
  await expect(drawer.getByTestId("execution-log")).toBeVisible();
  await conversation.screenshot("step-detail");
  await drawer.getByRole("button", { name: "Close step details" }).click();

  // dark theme and phone width, for the README
  await page.getByRole("button", { name: /Switch to (dark|light) theme/ }).click();
  await conversation.screenshot("conversation-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(400); // the sidebar slides away
  await conversation.screenshot("conversation-phone");
  await page.getByRole("button", { name: "Open conversations" }).click();
  await page.waitForTimeout(400);
  await conversation.screenshot("sidebar-phone");
  await context.close();
});
