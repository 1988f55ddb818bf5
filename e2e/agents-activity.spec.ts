import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { adminContext } from "./support/accounts.ts";

test("people see who is working and for how long, and a handle typed in full reaches that agent", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const plan = new PlanPanel(page);
  await view.create("Who is working");

  // the directive makes the commander think for a while before the plan appears
  await view.send("Compare kayaks, canoes and rafts for a river trip.", "@offline sleep=2500");
  const activity = page.getByTestId("activity");
  await expect(activity).toContainText("@commander is planning…");
  // the elapsed time ticks while it works
  const first = await activity.getByTestId("activity-run").first().innerText();
  await expect.poll(async () => activity.getByTestId("activity-run").first().innerText(), { timeout: 5_000 }).not.toBe(first);
  await expect(activity).toContainText(/is working on step \d…/, { timeout: 30_000 });
  await expect(plan.status).toHaveText(/completed/, { timeout: 60_000 });
  await expect(activity).toHaveCount(0);

  // typed in full, not picked from the list: the analyst answers, not the commander
  const analyst = page.locator('[data-testid="message"][data-author="analyst"]');
  const commander = page.locator('[data-testid="message"][data-author="commander"]');
  const [analystBefore, commanderBefore] = [await analyst.count(), await commander.count()];
  await view.composer.click();
  await view.composer.pressSequentially("@analyst what do you think of rafts?");
  await view.composer.press("Enter");
  await expect(analyst).toHaveCount(analystBefore + 1, { timeout: 30_000 });
  expect(await commander.count()).toBe(commanderBefore);
  await context.close();
});
