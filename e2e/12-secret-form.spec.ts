import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("12. a secret form field is typed as a password and shown masked once answered", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  await conversation.create("Needs a token");
  const secret = `tok-${Date.now()}-e2e`;
  await conversation.send("Deploy apples, pears and plums.", "@offline block=secret");

  // every step asks for a token: answer each form as it shows up
  const openForms = page.locator('[data-testid="form-card"][data-status="open"]');
  await expect(openForms.first()).toBeVisible({ timeout: 30_000 });
  let answered = 0;
  while ((await conversation.planStatus.textContent()) !== "completed") {
    if ((await openForms.count()) === 0) {
      await page.waitForTimeout(300);
      continue;
    }
    const formId = await openForms.first().getAttribute("data-form-id");
    const form = page.locator(`[data-testid="form-card"][data-form-id="${formId}"]`);
    const input = form.locator("input").first();
    await expect(input).toHaveAttribute("type", "password");
    await input.fill(secret);
    await form.getByRole("button", { name: "Send answer" }).click();
    await expect(form).toHaveAttribute("data-status", "answered");
    await expect(form.locator('dd[data-secret="true"]')).toHaveText("••••");
    answered += 1;
  }
  expect(answered).toBeGreaterThan(0);

  // the agents went on with it; the page never shows the value, live or after a reload
  expect(await page.content()).not.toContain(secret);
  await page.reload();
  await expect(page.locator('dd[data-secret="true"]').first()).toHaveText("••••");
  expect(await page.content()).not.toContain(secret);
  await context.close();
});
