import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

test("3. a blocked step's form answered by the second user resumes the plan for both", async ({ browser }) => {
  const admin = await adminContext(browser);
  const carol = await invitedContext(browser, admin.page, "Carol");
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create("Needs a person");
  await ada.addMember(carol.person.email);
  await new Sidebar(carol.page).acceptInvitation("Needs a person");
  const carolView = new ConversationPage(carol.page);
  await carolView.open(conversationId);

  // two people here: the commander answers when addressed (typed in full, not picked)
  await ada.send("@commander Compare apples, pears and plums for a picnic.", "@offline block=1");
  const openForms = carol.page.locator('[data-testid="form-card"][data-status="open"]');
  await expect(openForms.first()).toBeVisible({ timeout: 30_000 });
  await expect(ada.page.locator('[data-testid="plan-step"][data-status="blocked"]').first()).toBeVisible();
  await expect(ada.planStatus).toHaveText("paused");
  await ada.screenshot("form-blocked");

  // Carol answers every form that shows up until the plan finishes
  while ((await ada.planStatus.textContent()) !== "completed") {
    if ((await openForms.count()) === 0) {
      await ada.page.waitForTimeout(300);
      continue;
    }
    const formId = await openForms.first().getAttribute("data-form-id");
    const form = carol.page.locator(`[data-testid="form-card"][data-form-id="${formId}"]`);
    const input = form.locator("input:not([type=checkbox]), textarea, select").first();
    if ((await input.evaluate((el) => el.tagName)) === "SELECT") await input.selectOption({ index: 1 });
    else await input.fill("Sunny, twelve people");
    await form.getByRole("button", { name: "Send answer" }).click();
    await expect(form).toHaveAttribute("data-status", "answered");
  }
  await expect(carolView.planStatus).toHaveText("completed");
  await expect(ada.page.getByTestId("form-answered-by").first()).toContainText(carol.person.name);
  await expect(carol.page.getByTestId("form-answered-by").first()).toContainText(carol.person.name);
  await expect(ada.page.locator('[data-testid="form-card"][data-status="open"]')).toHaveCount(0);
  await ada.screenshot("form-answered");
  await admin.context.close();
  await carol.context.close();
});
