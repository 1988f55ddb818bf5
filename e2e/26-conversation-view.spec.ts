import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

const LAPTOP = { width: 1280, height: 800 };
const SMALL_LAPTOP = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
const WIDE = { width: 2560, height: 1300 };

/** The ⋯ button, opened; its first field has focus (not the close button). */
async function openSettings(page: Page) {
  const opener = page.getByRole("button", { name: "Conversation settings" });
  await opener.click();
  const dialog = page.getByRole("dialog", { name: "Conversation settings" });
  await expect(dialog.getByLabel("When the commander answers")).toBeFocused();
  return { dialog, opener };
}

test("26a. the header keeps its title and every control from 390 to 2560 px; rename, archive and delete by mouse, touch and keyboard", async ({
  browser,
}) => {
  // four widths, two dialogs at each, on a shared machine
  test.setTimeout(300_000);
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const title = `Quarterly planning for the platform team, with a long name ${Date.now().toString(36)}`;
  await view.create(title);
  const heading = page.getByTestId("conversation-title");

  for (const size of [WIDE, LAPTOP, SMALL_LAPTOP, PHONE]) {
    await page.setViewportSize(size);
    // the title always has room, and says all of itself on hover
    expect((await heading.boundingBox())!.width).toBeGreaterThan(90);
    await expect(heading).toHaveAttribute("title", title);
    // ⋯ and Members are never covered (click checks that the button itself receives the click)
    const { dialog, opener } = await openSettings(page);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
    await page.getByRole("button", { name: "Members" }).click();
    const members = page.getByRole("dialog", { name: "People and agents" });
    await expect(members.getByLabel("Add a person by name or email")).toBeFocused();
    await members.getByRole("button", { name: "Close" }).click();
    await expect(page.getByRole("button", { name: "Members" })).toBeFocused();
  }

  // where there is room the answering mode sits in the header; on a laptop it moves behind ⋯
  await page.setViewportSize(WIDE);
  await expect(page.getByTestId("conversation-header").getByLabel("When the commander answers")).toBeVisible();
  await page.setViewportSize(LAPTOP);
  await expect(page.getByTestId("conversation-header").getByLabel("When the commander answers")).toBeHidden();
  await view.screenshot("header-1280");

  // keyboard only at 1024: rename
  await page.setViewportSize(SMALL_LAPTOP);
  await page.getByRole("button", { name: "Conversation settings" }).focus();
  await page.keyboard.press("Enter");
  let dialog = page.getByRole("dialog", { name: "Conversation settings" });
  await dialog.getByLabel("Title").fill("Platform planning");
  await dialog.getByLabel("Title").press("Enter");
  await expect(dialog.getByRole("status")).toHaveText("Renamed.");
  await page.keyboard.press("Escape");
  await expect(heading).toHaveText("Platform planning");

  // archive at 1280: a banner, and the composer is read-only until it is brought back
  await page.setViewportSize(LAPTOP);
  ({ dialog } = await openSettings(page));
  await dialog.getByRole("button", { name: "Archive", exact: true }).click();
  await expect(dialog.getByRole("status")).toContainText("Archived");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("conversation-banner")).toHaveAttribute("data-fate", "archived");
  await expect(view.composer).toBeDisabled();
  ({ dialog } = await openSettings(page));
  await dialog.getByRole("button", { name: "Unarchive" }).click();
  await expect(dialog.getByRole("status")).toContainText("Back in the main list");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("conversation-banner")).toHaveCount(0);
  await expect(view.composer).toBeEnabled();

  // delete on a phone (a tap is a click here)
  await page.setViewportSize(PHONE);
  await view.screenshot("header-390");
  await page.getByRole("button", { name: "Conversation settings" }).click();
  dialog = page.getByRole("dialog", { name: "Conversation settings" });
  await dialog.getByRole("button", { name: "Delete conversation…" }).click();
  await dialog.getByRole("button", { name: "Delete for everyone" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await context.close();
});

test("26b. with two people the commander answers an unaddressed request; where it will not, the composer says how to ask it; a deleted conversation says so", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const admin = await adminContext(browser);
  const bob = await invitedContext(browser, admin.page, "Bob");
  const ada = new ConversationPage(admin.page);
  const title = `Two of us ${Date.now().toString(36)}`;
  const conversationId = await ada.create(title);
  await ada.addMember(bob.person.email);
  await new Sidebar(bob.page).acceptInvitation(title);
  const bobView = new ConversationPage(bob.page);
  await bobView.open(conversationId);

  // the default: nothing typed without @commander is left unanswered
  await expect(bob.page.getByTestId("commander-hint")).toHaveAttribute("data-mode", "auto");
  await bobView.send("What is a B-tree?");
  await expect(admin.page.locator('[data-testid="message"][data-author="commander"]').filter({ hasText: "What is a B-tree?" })).toHaveCount(
    1,
  );

  // the owner makes the commander answer only when mentioned: the composer says so
  const { dialog } = await openSettings(admin.page);
  await dialog.getByLabel("When the commander answers").selectOption("when_addressed");
  await admin.page.keyboard.press("Escape");
  await expect(admin.page.getByTestId("commander-hint")).toHaveText("The commander answers only when you mention @commander.");

  // deleted while Bob has it open: a banner, and his composer takes nothing more
  await openSettings(admin.page);
  const settings = admin.page.getByRole("dialog", { name: "Conversation settings" });
  await settings.getByRole("button", { name: "Delete conversation…" }).click();
  await settings.getByRole("button", { name: "Delete for everyone" }).click();
  await expect(bob.page.getByTestId("conversation-banner")).toHaveAttribute("data-fate", "deleted");
  await expect(bobView.composer).toBeDisabled();
  await admin.context.close();
  await bob.context.close();
});

test("26c. a plan reads in plain words: whole node text, one final answer, a drawer without jargon, focus where it was", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const { context, page } = await adminContext(browser);
  await page.setViewportSize(LAPTOP);
  const view = new ConversationPage(page);
  const plan = new PlanPanel(page);
  await view.create(`Picnic ${Date.now().toString(36)}`);
  await view.send("Compare apples, pears and plums for a picnic.");
  await expect(view.planStatus).toHaveText("completed", { timeout: 60_000 });

  // the synthesis step: its whole title and status can be read, its summary is plain text
  const node = view.step(4);
  await node.hover();
  const title = node.getByTestId("step-title");
  await expect(title).toHaveText("Synthesize the findings");
  expect(await title.evaluate((element) => element.scrollHeight <= element.clientHeight + 1)).toBe(true);
  await expect(node.getByTestId("step-state")).toHaveText(/done/);
  await expect(node.getByTestId("step-assignee")).toHaveText("the commander");
  await expect(view.step(1).getByTestId("step-summary")).not.toHaveText(/(^|\s)(#{1,6}|\*\*)/);

  // the answer once: the closing message points to it and takes you there
  const closing = view.messages.filter({ has: page.getByTestId("plan-outcome") }).last();
  await expect(closing).toContainText("The answer is above: step 4 (Synthesize the findings)");
  await expect(closing).not.toContainText("Result of step");
  await closing.getByTestId("go-to-answer").click();
  await expect(view.messages.and(page.locator('[data-kind="result"]')).last()).toBeFocused();

  // the drawer: plain words by default, ids and token counts in Details; focus goes back to the step
  const drawer = await plan.openStep(1);
  await expect(drawer.dialog.getByTestId("execution-log")).toBeVisible();
  const shown = await drawer.dialog.innerText();
  expect(shown).not.toMatch(/dispatch|reconcile|ask_commander|model-timing|Tokens|[0-9a-f]{8}-[0-9a-f]{4}-/);
  expect(shown).toContain("If it fails");
  await drawer.dialog.getByText("Details: tokens, ids, full log").click();
  await expect(drawer.dialog.getByTestId("full-log")).toBeVisible();
  await drawer.close();
  await expect(plan.stepButton(1)).toBeFocused();

  // Ctrl+K, then typing, searches
  await page.keyboard.press("Control+k");
  await page.keyboard.type("apples");
  await expect(page.getByRole("dialog", { name: "Search messages" }).getByLabel("Search messages")).toHaveValue("apples");
  await page.keyboard.press("Escape");

  // on a phone: the admin tabs scroll to the last one, which is marked; the timeline's labels do not overlap
  await page.setViewportSize(PHONE);
  await page.goto("/admin/plans");
  const tabs = page.getByTestId("admin-tabs");
  await tabs.getByRole("link", { name: "Audit log" }).click();
  await page.waitForURL("**/admin/audit");
  await expect(tabs.getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page");
  await expect(tabs.getByRole("link", { name: "Audit log" })).toBeInViewport();
  await tabs.getByRole("link", { name: "Plan history" }).click();
  await page.getByTestId("plan-history").getByRole("link").first().click();
  await expect(page.getByTestId("plan-timeline")).toBeVisible();
  const boxes = (await page.getByTestId("timeline-tick").all()).map((tick) => tick.boundingBox());
  const visible = (await Promise.all(boxes)).filter((box): box is NonNullable<typeof box> => box !== null && box.width > 0);
  expect(visible.length).toBeGreaterThan(1);
  for (let i = 1; i < visible.length; i += 1) expect(visible[i].x).toBeGreaterThanOrEqual(visible[i - 1].x + visible[i - 1].width);
  await context.close();
});

test("26d. the live indicator notices a server that stopped answering within 10 s", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  let frozen = false;
  let fromServer = 0;
  // the socket's traffic passes through untouched until the "server" freezes: then nothing more arrives
  await page.routeWebSocket(/\/socket\.io\//, (socket) => {
    const server = socket.connectToServer();
    server.onMessage((message) => {
      fromServer += 1;
      if (!frozen) socket.send(message);
    });
    socket.onMessage((message) => {
      if (!frozen) server.send(message);
    });
  });
  await page.route(/\/socket\.io\//, (route) => (frozen ? route.abort() : route.fallback()));
  // the tab's one socket was opened before the routes: a reload opens it again through them
  await page.reload();
  const view = new ConversationPage(page);
  await view.create(`Heartbeat ${Date.now().toString(36)}`);
  // upgraded to WebSocket: the heartbeat now travels there
  await expect.poll(() => fromServer).toBeGreaterThan(2);
  frozen = true;
  await expect(page.getByTestId("connection")).toHaveAttribute("data-state", "offline", { timeout: 10_000 });
  await context.close();
});
