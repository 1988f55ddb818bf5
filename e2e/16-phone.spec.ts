import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

const PHONE = { width: 390, height: 844 };

test("16. on a 390×844 phone: the drawer reaches conversations and admin, the chat is full width, the plan is a sheet whose graph fits", async ({
  browser,
}) => {
  const { context, page } = await adminContext(browser);
  await page.setViewportSize(PHONE);
  await page.goto("/");
  const drawer = page.getByRole("complementary", { name: "Conversations" });
  const menu = page.getByRole("button", { name: "Open conversations" });

  // home: the sidebar is out of view and the menu button is how to reach it
  await expect(menu).toBeInViewport();
  await expect(drawer).not.toBeInViewport();
  await menu.click();
  await expect(drawer).toBeInViewport({ ratio: 1 });
  // the admin screens are reachable from the drawer as well
  await expect(drawer.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Agents" })).toBeInViewport();
  await page.screenshot({ path: screenshotPath("drawer-phone") });

  // open a conversation from the drawer: the drawer closes, the chat takes the full width
  const conversation = new ConversationPage(page);
  await drawer.getByRole("button", { name: "+ New conversation" }).click();
  const create = page.getByRole("dialog", { name: "New conversation" });
  await create.getByLabel("Title").fill(`Phone ${Date.now().toString(36)}`);
  // the agents have loaded (every one is picked by default)
  await expect(create.getByText("@researcher", { exact: true })).toBeVisible();
  await create.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  await conversation.waitLive();
  await expect(drawer).not.toBeInViewport();
  const chat = await page.getByRole("region", { name: "Chat" }).boundingBox();
  expect(chat?.width).toBe(PHONE.width);
  // nothing in the header pushes the page sideways
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  // send a message: the composer is on screen, the message arrives, the commander plans
  await expect(conversation.composer).toBeInViewport();
  await conversation.send("Compare Postgres, MySQL and SQLite for a small team.", "@offline sleep=300");
  await expect(conversation.messages.filter({ hasText: "Compare Postgres, MySQL and SQLite" })).toHaveCount(1);
  const showPlan = page.getByRole("button", { name: "Show plan" });
  await expect(showPlan).toHaveText(/Plan \(1\)/);
  await expect(showPlan).toBeInViewport();

  // the plan opens as a bottom sheet over the chat; its graph's steps fit in it
  const sheet = page.getByTestId("plan-sheet");
  await expect(sheet).not.toBeVisible();
  await showPlan.click();
  await expect(sheet).toBeInViewport({ ratio: 1 });
  const box = (await sheet.boundingBox())!;
  expect(box.width).toBe(PHONE.width);
  expect(box.y + box.height).toBeCloseTo(PHONE.height, 0);
  expect(box.height).toBeGreaterThan(PHONE.height * 0.6);
  await expect(conversation.planSteps).toHaveCount(4);
  await expect(conversation.planStatus).toHaveText("completed", { timeout: 60_000 });
  for (let index = 1; index <= 4; index += 1) await expect(conversation.step(index)).toBeInViewport({ ratio: 1 });
  await page.waitForTimeout(300); // the graph's fit-to-view settles
  await page.screenshot({ path: screenshotPath("plan-phone") });

  // closing the sheet gives the chat back; Escape closes it too
  await sheet.getByRole("button", { name: "Close plan" }).click();
  await expect(sheet).not.toBeVisible();
  await showPlan.click();
  await expect(sheet).toBeInViewport();
  await page.keyboard.press("Escape");
  await expect(sheet).not.toBeVisible();
  await expect(conversation.composer).toBeInViewport();
  await context.close();
});
