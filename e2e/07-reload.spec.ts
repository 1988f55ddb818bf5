import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("7. reload mid-plan: same state, live updates continue", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  await conversation.create("Reload me");
  await conversation.send("Compare trains, buses and bikes for commuting.", "@offline sleep=2500");
  await expect(page.locator('[data-testid="plan-step"][data-status="in_progress"]').first()).toBeVisible({ timeout: 30_000 });

  const before = { messages: await conversation.messageIds(), steps: await conversation.stepStatuses() };
  await page.reload();
  await conversation.waitLive();
  const after = { messages: await conversation.messageIds(), steps: await conversation.stepStatuses() };
  // nothing lost, nothing doubled: what was there is still there, in the same order
  expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
  expect(new Set(after.messages).size).toBe(after.messages.length);
  for (const [index, status] of Object.entries(before.steps)) {
    if (status === "done") expect(after.steps[index]).toBe("done");
  }

  await expect(conversation.planStatus).toHaveText("completed", { timeout: 60_000 });
  const final = await conversation.messageIds();
  await page.reload();
  await conversation.waitLive();
  expect(await conversation.messageIds()).toEqual(final);
  await context.close();
});
