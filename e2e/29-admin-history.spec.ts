import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { ADMIN, adminContext, invitedContext } from "./support/accounts.ts";

/** Answers each form the plan opens until it completes. */
async function answerFormsUntilDone(conversation: ConversationPage) {
  const page = conversation.page;
  const openForms = page.locator('[data-testid="form-card"][data-status="open"]');
  await expect(openForms.first()).toBeVisible({ timeout: 30_000 });
  while ((await conversation.planStatus.textContent()) !== "completed") {
    if ((await openForms.count()) === 0) {
      await page.waitForTimeout(300);
      continue;
    }
    const form = page.locator(`[data-testid="form-card"][data-form-id="${await openForms.first().getAttribute("data-form-id")}"]`);
    const input = form.locator("input:not([type=checkbox]), textarea, select").first();
    if ((await input.evaluate((el) => el.tagName)) === "SELECT") await input.selectOption({ index: 1 });
    else await input.fill("Twelve people");
    await form.getByRole("button", { name: "Send answer" }).click();
    await expect(form).toHaveAttribute("data-status", "answered");
  }
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test("29. admin plan history: searched by title, linked both ways with its conversation; the plan page tells the end", async ({
  browser,
}) => {
  const { context, page } = await adminContext(browser);
  await page.setViewportSize({ width: 1280, height: 800 });
  const stamp = Date.now().toString(36);
  const conversation = new ConversationPage(page);
  const conversationId = await conversation.create(`History ${stamp}`);
  await conversation.send(`Compare kiwi${stamp}, figs and limes.`, "@offline block=1");
  await answerFormsUntilDone(conversation);

  // the conversation header links an admin to this conversation's plans
  await page.getByTestId("plan-history-link").click();
  await page.waitForURL(new RegExp(`/admin/plans\\?conversation=${conversationId}`));
  const rows = page.getByTestId("plan-history").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`kiwi${stamp}`);

  // search by words in the title, whatever their case, on the server
  await page.goto("/admin/plans");
  await page.getByLabel("Title").fill(`KIWI${stamp}`);
  await page.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL(/q=KIWI/);
  await expect(rows).toHaveCount(1);
  await page.getByLabel("Title").fill(`nothing${stamp}`);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("No plans match.")).toBeVisible();
  await page.goBack();
  await expect(rows).toHaveCount(1);

  // the plan page: phases in words, the final answer, who answered which form and when
  await rows
    .first()
    .getByRole("link", { name: new RegExp(`kiwi${stamp}`) })
    .click();
  await expect(page.getByTestId("plan-timeline")).toBeVisible();
  const phases = page.getByTestId("timeline-phase");
  await expect(phases.first()).toBeVisible();
  expect(new Set(await phases.allTextContents())).toEqual(new Set(["done"]));
  await expect(page.getByTestId("final-answer")).not.toContainText("No result was delivered");
  await expect(page.getByTestId("final-answer")).not.toBeEmpty();
  const forms = page.getByTestId("plan-form");
  await expect(forms.first()).toContainText(`answered by ${ADMIN.name} at`);
  await expect(page.getByTestId("timeline-phase-note")).toHaveCount(0);

  // and back to the conversation
  await page.getByTestId("timeline-conversation").click();
  await page.waitForURL(new RegExp(`/c/${conversationId}$`));
  await conversation.waitLive();

  // a phone: the link stays in the header, the admin pages do not scroll sideways
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("plan-history-link")).toBeVisible();
  await page.goto(`/admin/plans?conversation=${conversationId}`);
  await expect(rows).toHaveCount(1);
  expect(await noSidewaysScroll(page)).toBe(true);
  await rows
    .first()
    .getByRole("link", { name: new RegExp(`kiwi${stamp}`) })
    .click();
  await expect(page.getByTestId("final-answer")).toBeVisible();
  expect(await noSidewaysScroll(page)).toBe(true);
  await context.close();
});

test("29b. a member's conversation header has no admin link", async ({ browser }) => {
  const admin = await adminContext(browser);
  const member = await invitedContext(browser, admin.page, "Ned");
  const conversation = new ConversationPage(member.page);
  await conversation.create(`Mine ${Date.now().toString(36)}`);
  await expect(member.page.getByTestId("conversation-header")).toBeVisible();
  await expect(member.page.getByTestId("plan-history-link")).toHaveCount(0);
  await admin.context.close();
  await member.context.close();
});
