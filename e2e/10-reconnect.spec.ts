import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { adminContext } from "./support/accounts.ts";

test("10. offline mid-plan: back online, the page catches up to what a fresh load shows, without reloading", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const plan = new PlanPanel(page);
  const conversationId = await view.create("Flaky train wifi");
  // a second window of the same account keeps watching while the first is offline
  const watcher = await adminContext(browser);
  const watcherView = new ConversationPage(watcher.page);
  const watcherPlan = new PlanPanel(watcher.page);
  await watcherView.open(conversationId);

  await view.send("Compare tea, coffee and cocoa for a long night.", "@offline sleep=2500");
  await plan.expectStep(1, "in progress", { timeout: 30_000 });

  // anything that reloads or navigates the page would lose this marker
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  await page.evaluate(() => ((window as unknown as { __sameDocument?: boolean }).__sameDocument = true));

  await context.setOffline(true);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-state", "offline");

  // meanwhile the plan finishes and the other window writes (and the commander answers it)
  await expect(watcherPlan.status).toHaveText("completed", { timeout: 60_000 });
  const note = "Posted while you were offline";
  await watcherView.send(note);
  await expect(watcher.page.locator('[data-testid="message"][data-author="commander"]').filter({ hasText: note })).toHaveCount(1);

  // the offline page has seen none of it
  await expect(plan.status).toHaveText("running");
  await expect(view.messages.filter({ hasText: note })).toHaveCount(0);

  await context.setOffline(false);
  await view.waitLive();
  await expect(plan.status).toHaveText("completed");
  await expect(view.messages.filter({ hasText: note })).toHaveCount(2);

  // the same state as a fresh load: same messages in the same order, same steps
  const fresh = await watcher.context.newPage();
  const freshView = new ConversationPage(fresh);
  await freshView.open(conversationId);
  const expected = await freshView.messageIds();
  await expect.poll(() => view.messageIds()).toEqual(expected);
  expect(new Set(expected).size).toBe(expected.length);
  expect(await plan.stepLabels()).toEqual(await new PlanPanel(fresh).stepLabels());
  expect(await plan.stepLabels()).toEqual({ "1": "done", "2": "done", "3": "done", "4": "done" });
  // runs that ended while offline leave no half-streamed text behind
  await expect(page.getByTestId("streaming")).toHaveCount(0);

  expect(navigations).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  await context.close();
  await watcher.context.close();
});
