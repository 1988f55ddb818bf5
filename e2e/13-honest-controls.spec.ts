import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { adminContext } from "./support/accounts.ts";

/**
 * Holds back what the server pushes to this tab (websocket and polling) while
 * `frozen`: the screen of someone whose view has not caught up yet.
 */
async function freezableLiveUpdates(page: Page) {
  const state = { frozen: false };
  await page.routeWebSocket(/\/socket\.io\//, (socket) => {
    if (state.frozen) return void socket.close();
    const server = socket.connectToServer();
    server.onMessage((message) => {
      if (!state.frozen) socket.send(message);
    });
  });
  await page.route(/\/socket\.io\//, (route) => (state.frozen ? route.abort() : route.continue()));
  return state;
}

/*
 * Someone retried and cancelled before this screen heard of it: its buttons are
 * stale, and pressing them must say what is true now instead of "ok".
 */
test("13. a control that cannot apply answers 409 with the reason and the person sees it; missing step or plan: 404", async ({
  browser,
}) => {
  const { context, page } = await adminContext(browser);
  const live = await freezableLiveUpdates(page);
  await page.goto("/");
  const conversation = new ConversationPage(page);
  const plan = new PlanPanel(page);
  const conversationId = await conversation.create("Honest controls");
  await conversation.send("Compare maps, compasses and stars for hikers.", "@offline fail=fatal fail_attempts=1 sleep=6000");
  await plan.expectStep(1, "failed", { timeout: 30_000 });
  const drawer = await plan.openStep(1);
  await expect(drawer.retryButton).toBeVisible();

  const snapshot = (await (await page.request.get(`/api/conversations/${conversationId}`)).json()) as { plans: { id: string }[] };
  const planId = snapshot.plans[0].id;
  const origin = new URL(page.url()).origin;
  const control = (data: object, id = planId) =>
    page.request.post(`/api/conversations/${conversationId}/plans/${id}`, { data, headers: { origin } });

  live.frozen = true;
  const retried = await control({ action: "retry", stepIndex: 1 });
  expect(retried.status()).toBe(200);
  expect(await retried.json()).toMatchObject({
    action: "retry",
    plan: { id: planId, status: "running" },
    step: { index: 1, status: "in_progress" },
  });

  // the stale Retry button: refused, and the reason is on screen
  await drawer.retryButton.click();
  await expect(drawer.dialog.getByRole("alert")).toHaveText(/^step 1 is (in progress|done); only a failed step can be retried$/);

  const missingStep = await control({ action: "skip", stepIndex: 99 });
  expect(missingStep.status()).toBe(404);
  expect(((await missingStep.json()) as { error: { message: string } }).error.message).toBe("step 99 was not found in this plan");
  expect((await control({ action: "cancel" }, "no-such-plan")).status()).toBe(404);

  const cancelled = await control({ action: "cancel", reason: "done here" });
  expect(cancelled.status()).toBe(200);
  expect(await cancelled.json()).toMatchObject({ action: "cancel", plan: { status: "cancelled" }, step: null });
  const again = await control({ action: "cancel" });
  expect(again.status()).toBe(409);
  expect(await again.json()).toEqual({ error: { code: "conflict", message: "the plan is cancelled; cancel no longer applies" } });
  const late = await control({ action: "skip", stepIndex: 2 });
  expect(late.status()).toBe(409);

  // the stale Cancel button: the same refusal, shown
  await drawer.close();
  await plan.cancel();
  await expect(plan.region.getByRole("alert")).toHaveText("the plan is cancelled; cancel no longer applies");

  // and once the screen hears again, it shows what happened
  live.frozen = false;
  await page.reload();
  await expect(plan.status).toHaveText("cancelled");
  await context.close();
});
