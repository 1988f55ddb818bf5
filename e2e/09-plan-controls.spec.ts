import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { ADMIN, adminContext, invitedContext } from "./support/accounts.ts";

test("9a. cancelling a running plan stops it for everyone: plan cancelled, every step skipped, runs cancelled", async ({ browser }) => {
  const admin = await adminContext(browser);
  const dan = await invitedContext(browser, admin.page, "Dan");
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create("Cancel me");
  await ada.addMember(dan.person.email);
  await new Sidebar(dan.page).acceptInvitation("Cancel me");
  const danView = new ConversationPage(dan.page);
  await danView.open(conversationId);
  const adaPlan = new PlanPanel(admin.page);
  const danPlan = new PlanPanel(dan.page);

  // the directive also makes the commander think for that long before the plan appears
  // two people here: the commander answers when addressed (typed in full, not picked)
  await ada.send("@commander Compare oak, pine and birch for a bookshelf.", "@offline sleep=15000");
  await adaPlan.expectStep(1, "in progress", { timeout: 40_000 });
  await expect(danPlan.status).toHaveText("running");
  await expect(danPlan.stepButtons).toHaveCount(4);

  await adaPlan.cancel();
  for (const plan of [adaPlan, danPlan]) {
    await expect(plan.status).toHaveText("cancelled");
    await expect(plan.cancelButton).toBeHidden();
    // the three running steps and the synthesis still waiting for them
    await expect.poll(() => plan.stepLabels()).toEqual({ "1": "skipped", "2": "skipped", "3": "skipped", "4": "skipped" });
    await expect(plan.progress).toHaveAttribute("aria-valuenow", "4");
  }

  // the running work stopped instead of finishing in the background: the run is cancelled
  const drawer = await danPlan.openStep(1);
  await expect(drawer.dialog).toContainText(`cancelled by ${ADMIN.name}`);
  await expect(drawer.runWithStatus("cancelled")).toBeVisible();
  await expect(drawer.runWithStatus("running")).toHaveCount(0);
  await expect(drawer.retryButton).toHaveCount(0);
  await drawer.close();
  await admin.context.close();
  await dan.context.close();
});

test("9b. cancelling a plan that waits for a person closes its open forms", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  const plan = new PlanPanel(page);
  await conversation.create("Cancel while waiting");
  await conversation.send("Compare maps, compasses and GPS units for a hike.", "@offline block=1");
  const forms = page.getByTestId("form-card");
  await expect(forms.first().getByRole("button", { name: "Send answer" })).toBeVisible({ timeout: 30_000 });
  await expect(plan.status).toHaveText("paused");

  await plan.cancel();
  await expect(plan.status).toHaveText("cancelled");
  await expect.poll(() => plan.stepLabels()).toEqual({ "1": "skipped", "2": "skipped", "3": "skipped", "4": "skipped" });
  // nobody is invited to answer for a plan that no longer runs: the forms say they are closed
  await expect(page.getByRole("button", { name: "Send answer" })).toHaveCount(0);
  await expect(forms.first()).toContainText("This form was closed");
  await page.reload();
  await conversation.waitLive();
  await expect(forms.first()).toContainText("This form was closed");
  await expect(page.getByRole("button", { name: "Send answer" })).toHaveCount(0);
  await context.close();
});

/*
 * A failed step the commander retries. README: "`decision=` is what the commander
 * decides about a failed step … Directives in a request reach the steps through
 * {{request}}"; the commander is shown the failed step's input, so it reads the
 * decision there. fail_attempts=1 fails each step once, so the retry succeeds.
 */
test("9c. a step that fails fatally is retried on the commander's decision and finishes", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  const plan = new PlanPanel(page);
  await conversation.create("Try again");
  await conversation.send("Compare kites, gliders and balloons for a fair.", "@offline fail=fatal fail_attempts=1 decision=retry");

  const decision = page.locator('[data-testid="message"][data-kind="decision"]').first();
  await expect(decision).toContainText(/Decision for step \d+: \w+\./, { timeout: 30_000 });
  // once written a decision does not change: read it once instead of waiting for another
  expect(await decision.textContent()).toMatch(/Decision for step \d+: retry\./);
  await expect(plan.status).toHaveText("completed", { timeout: 40_000 });
  // every step's first attempt failed, so "done" means it ran again
  expect(await plan.stepLabels()).toEqual({ "1": "done", "2": "done", "3": "done", "4": "done" });
  await context.close();
});

/*
 * The members' controls. The commander is shown the failed step's input, and with
 * it the request's sleep, so while it "thinks" the step stays failed with its
 * decision pending: the drawer offers Retry and Skip. A member's action settles the
 * step first; the commander's later decision is then stale, changes nothing, and
 * says so. The commander retries the steps nobody touched, so the plan delivers its
 * synthesis with step 2 missing: partial, not completed.
 */
test("9d. members retry one failed step and skip another while the commander deliberates; the plan ends partial", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const conversation = new ConversationPage(page);
  const plan = new PlanPanel(page);
  await conversation.create("Hands on");
  await conversation.send("Compare maps, compasses and stars for hikers.", "@offline fail=fatal fail_attempts=1 sleep=12000 decision=retry");

  await plan.expectStep(1, "failed", { timeout: 30_000 });
  await plan.expectStep(2, "failed", { timeout: 30_000 });
  const first = await plan.openStep(1);
  await first.retryButton.click();
  await plan.expectStep(1, "in progress");
  await first.close();

  const second = await plan.openStep(2);
  await second.skipButton.click();
  await plan.expectStep(2, "skipped");
  await second.close();

  // step 1's second attempt succeeds; the commander's late decision does not undo it
  await plan.expectStep(1, "done", { timeout: 40_000 });
  await expect(plan.status).toHaveText("partial", { timeout: 90_000 });
  expect(await plan.stepLabels()).toEqual({ "1": "done", "2": "skipped", "3": "done", "4": "done" });
  // the chat says what happened: step 1's decision was not applied, and its retry worked
  const messages = page.locator('[data-testid="message"]');
  await expect(messages.filter({ hasText: "Decision for step 1:" })).toContainText("Not applied: step 1 is already");
  await expect(messages.filter({ hasText: /Step 1 \(.*\) succeeded on attempt 2 after a retry/ })).toHaveCount(1);
  // partial in the plan view and in the closing message, which names what is missing
  await expect(page.getByTestId("plan-progress")).toContainText("3 of 4 steps done · 1 skipped");
  const closing = page.locator('[data-testid="message"][data-kind="outcome"]').last();
  await expect(closing.getByTestId("plan-outcome")).toHaveAttribute("data-outcome", "partial");
  await expect(closing).toContainText(/Step 2 \(.*\) skipped/);
  await context.close();
});
