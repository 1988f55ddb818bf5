/**
 * Issue 44, items 6 and 7, at a laptop's 1280×800 and a phone's 390×844, with a second
 * person watching: Stop beside one agent stops that step only (the rest of the plan
 * goes on, and what the agent had written stays, marked stopped); Stop plan is its own
 * control; a step that failed under `continue` looks failed, not skipped; after the plan
 * ended, Retry step reopens it and Re-run plan makes a new plan linked to the old one.
 * (What Stop plan does to every step is 09-plan-controls.spec.ts's.)
 * Plans go in through the automation API, so each step's on_failure and its offline
 * directive (pause=: half an answer, then a long wait) are the test's own.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { ADMIN, adminContext, invitedContext } from "./support/accounts.ts";

const VIEWPORTS = [
  { name: "laptop", size: { width: 1280, height: 800 }, phone: false },
  { name: "phone", size: { width: 390, height: 844 }, phone: true },
] as const;

/** A conversation of Ada's that Dan has joined and opened, and a token to submit plans with. */
async function twoPeople(
  browser: Parameters<Parameters<typeof test>[2]>[0]["browser"],
  title: string,
  size: { width: number; height: number },
) {
  const admin = await adminContext(browser);
  const dan = await invitedContext(browser, admin.page, "Dan");
  // set up at the default size (the sidebar is a drawer on a phone), then look at it at `size`
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create(title);
  await ada.addMember(dan.person.email);
  await new Sidebar(dan.page).acceptInvitation(title);
  await new ConversationPage(dan.page).open(conversationId);
  await admin.page.setViewportSize(size);
  await dan.page.setViewportSize(size);
  const created = await admin.context.request.post("/api/tokens", {
    data: { name: `recovery ${title}`, scopes: ["read", "write"], expiresInDays: 1 },
  });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  return { admin, dan, conversationId, token };
}

async function submit(request: APIRequestContext, token: string, conversationId: string, plan: unknown): Promise<string> {
  const response = await request.post(`/api/v1/conversations/${conversationId}/plans`, {
    headers: { authorization: `Bearer ${token}` },
    data: plan,
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** On a phone the plan is a sheet over the chat: open it to read or use the plan. */
async function showPlan(page: Page, phone: boolean) {
  if (!phone) return;
  const sheet = page.getByTestId("plan-sheet");
  if (!(await sheet.isVisible())) await page.getByRole("button", { name: "Show plan" }).click();
  await expect(sheet).toBeInViewport();
}

async function hidePlan(page: Page, phone: boolean) {
  if (!phone) return;
  const sheet = page.getByTestId("plan-sheet");
  if (await sheet.isVisible()) await sheet.getByRole("button", { name: "Close plan" }).click();
  await expect(sheet).toBeHidden();
}

for (const viewport of VIEWPORTS) {
  test(`31a (${viewport.name}). Stop beside one agent stops that step only; the others finish, and its partial answer stays, marked stopped`, async ({
    browser,
  }) => {
    const { admin, dan, conversationId, token } = await twoPeople(
      browser,
      `Stop one ${viewport.name} ${Date.now().toString(36)}`,
      viewport.size,
    );
    await submit(admin.context.request, token, conversationId, {
      title: "Shelf woods",
      steps: [
        {
          index: 1,
          title: "Oak",
          assignee: "researcher",
          input: "Look into oak.\n@offline pause=60000",
          wait_for: [],
          on_failure: "continue",
        },
        { index: 2, title: "Pine", assignee: "analyst", input: "Look into pine.\n@offline sleep=5000", wait_for: [] },
        {
          index: 3,
          title: "Compare",
          assignee: "writer",
          input: "Compare {{step_1.output_summary}} with {{step_2.output_summary}}",
          wait_for: [1, 2],
        },
      ],
    });
    // the researcher has written half its answer and waits: Stop beside it
    const streaming = admin.page.getByTestId("streaming").filter({ hasText: "Findings" });
    await expect(streaming).toBeVisible({ timeout: 30_000 });
    // stopping the whole plan is a control of its own, beside the plan's status
    await showPlan(admin.page, viewport.phone);
    await expect(new PlanPanel(admin.page).cancelButton).toBeVisible();
    await hidePlan(admin.page, viewport.phone);
    const stop = admin.page.getByRole("button", { name: "Stop @researcher is working on step 1" });
    await expect(stop).toBeInViewport();
    admin.page.once("dialog", (dialog) => {
      expect(dialog.message()).toContain("stops step 1 only");
      void dialog.accept();
    });
    await stop.focus();
    await admin.page.keyboard.press("Enter");

    for (const page of [admin.page, dan.page]) {
      // the stopped answer stays in the chat, marked, for both of them
      const stopped = page.locator('[data-testid="message"][data-kind="stopped"]');
      await expect(stopped).toHaveCount(1);
      await expect(stopped).toContainText("Findings");
      await expect(stopped.getByTestId("stopped-note")).toHaveText("(stopped before it finished)");
      await showPlan(page, viewport.phone);
      const plan = new PlanPanel(page);
      await plan.expectStep(1, "failed");
      // the unrelated step was not cancelled: it finishes, and the comparison runs without step 1
      await expect(plan.status).toHaveText("partial", { timeout: 40_000 });
      expect(await plan.stepLabels()).toEqual({ "1": "failed", "2": "done", "3": "done" });
      await expect(plan.cancelButton).toHaveCount(0);
    }
    const drawer = await new PlanPanel(dan.page).openStep(1);
    await expect(drawer.dialog).toContainText(`stopped by ${ADMIN.name}`);
    await expect(drawer.runWithStatus("cancelled")).toBeVisible();
    await drawer.close();
    await hidePlan(dan.page, viewport.phone);
    await admin.context.close();
    await dan.context.close();
  });

  test(`31b (${viewport.name}). after the end a failed step looks failed, Retry step reopens the plan, Re-run plan links both ways`, async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    const { admin, dan, conversationId, token } = await twoPeople(
      browser,
      `Recover ${viewport.name} ${Date.now().toString(36)}`,
      viewport.size,
    );
    // the first run of step 1 fails for good; under continue the summary still gets written
    const planId = await submit(admin.context.request, token, conversationId, {
      title: "Shelf report",
      steps: [
        {
          index: 1,
          title: "Supply",
          assignee: "researcher",
          input: "Check the oak supply.\n@offline fail=fatal fail_attempts=1",
          on_failure: "continue",
          max_retries: 0,
        },
        { index: 2, title: "Report", assignee: "writer", input: "Sum up {{step_1.output_summary}}" },
      ],
    });
    const ada = new PlanPanel(admin.page);
    const danPlan = new PlanPanel(dan.page);
    await showPlan(admin.page, viewport.phone);
    await showPlan(dan.page, viewport.phone);
    await expect(ada.status).toHaveText("partial", { timeout: 40_000 });
    for (const plan of [ada, danPlan]) {
      // failed under continue: it reads failed, in red, not skipped
      await plan.expectStep(1, "failed");
      await expect(plan.region.locator('[data-testid="plan-step"][data-index="1"]')).toHaveAttribute("data-status", "failed");
      await expect(plan.region.getByTestId("progress-failed")).not.toHaveCSS("width", "0px");
      await expect(plan.cancelButton).toHaveCount(0);
    }

    // Retry step on the ended plan reopens it; Dan sees it run and end again
    const drawer = await ada.openStep(1);
    await expect(drawer.dialog).toContainText("retrying reopens it");
    await drawer.retryButton.focus();
    await admin.page.keyboard.press("Enter");
    await expect(danPlan.status).toHaveText(/running|completed/);
    await drawer.close();
    for (const plan of [ada, danPlan]) {
      await expect(plan.status).toHaveText("completed", { timeout: 40_000 });
      await plan.expectStep(1, "done");
    }

    // Re-run plan: a new plan from the same steps, shown to both, each linked to the other
    await ada.rerunButton.click();
    const chooser = (page: Page) => page.getByRole("combobox", { name: "Choose a plan" });
    await expect(chooser(admin.page)).not.toHaveValue(planId);
    await expect(chooser(dan.page).getByRole("option", { name: "Shelf report (re-run)" })).toHaveCount(1);
    for (const [page, plan] of [
      [admin.page, ada],
      [dan.page, danPlan],
    ] as const) {
      if ((await chooser(page).inputValue()) === planId) await chooser(page).selectOption({ label: "Shelf report (re-run)" });
      const back = plan.region.getByRole("button", { name: "Show the plan this re-runs" });
      await expect(back).toBeVisible();
      await expect(plan.stepButtons).toHaveCount(2);
      await back.click();
      await expect(chooser(page)).toHaveValue(planId);
      await expect(plan.region.getByRole("button", { name: "Show its re-run" })).toBeVisible();
    }

    await admin.context.close();
    await dan.context.close();
  });
}
