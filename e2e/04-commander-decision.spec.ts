import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("4. a failing ask_commander step produces a visible commander decision", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  await conversation.create("Something breaks");
  await conversation.send("Compare Redis, Memcached and Valkey for caching.", "@offline fail=fatal decision=skip");

  // each failure is shown where it happened, then the commander decides about it
  await expect(page.locator('[data-testid="message"][data-kind="error"]').first()).toBeVisible({ timeout: 30_000 });
  const decision = page.locator('[data-testid="message"][data-kind="decision"]').first();
  await expect(decision).toBeVisible({ timeout: 30_000 });
  await expect(decision).toHaveAttribute("data-author", "commander");
  await expect(decision).toContainText(/Decision for step \d+: skip/);
  // skip means the plan goes on as if the step produced nothing
  await expect(page.locator('[data-testid="plan-step"][data-status="skipped"]').first()).toBeVisible();
  // every step (the synthesis too) failed and was skipped: nothing was delivered, and it says so
  await expect(conversation.planStatus).toHaveText("failed", { timeout: 30_000 });
  const closing = page.locator('[data-testid="message"][data-kind="outcome"]').last();
  await expect(closing.getByTestId("plan-outcome")).toHaveAttribute("data-outcome", "failed");
  await expect(closing).toContainText("0 of 4 steps done");
  await expect(closing).toContainText("No result was delivered");
  await expect(closing).toContainText(/Step 1 \(.*\) skipped: .*fatal failure/);
  // the bar is not a full green bar: nothing is done
  await expect(page.getByTestId("plan-progress")).toContainText("0 of 4 steps done · 4 skipped");
  await conversation.screenshot("commander-decision");
  await context.close();
});
