/**
 * Catching up: a message sent while offline stays in the composer with Retry (never
 * the browser's raw "Failed to fetch") and goes out once back online; what arrives
 * while scrolled up gets an unread divider and "jump to latest"; and while the tab is
 * hidden its title counts new messages and says a form waits, and the browser
 * notifies (when allowed) a form and an agent answering your mention.
 */
import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("22a. a message sent offline stays in the composer with Retry, and goes out once back online", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  await view.create("Train through a tunnel");
  const text = "Written in the tunnel";

  await context.setOffline(true);
  await view.composer.click();
  await view.composer.pressSequentially(text);
  await view.composer.press("Enter");
  const failure = page.getByTestId("send-error");
  await expect(failure).toContainText("Not sent");
  await expect(failure).not.toContainText("Failed to fetch");
  await expect(page.getByText("Failed to fetch")).toHaveCount(0);
  // the message is kept, not lost
  await expect(view.composer).toHaveValue(text);
  await expect(view.messages.filter({ hasText: text })).toHaveCount(0);

  await context.setOffline(false);
  await expect(failure).toContainText("Back online");
  await view.waitLive();
  await failure.getByRole("button", { name: "Retry" }).click();
  await expect(view.composer).toHaveValue("");
  await expect(failure).toHaveCount(0);
  await expect(view.messages.filter({ hasText: text }).first()).toBeVisible();
  await context.close();
});

test("22b. what arrives while scrolled up gets an unread divider and a jump to latest", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const conversationId = await view.create("A long scroll");
  // only an addressed message wakes an agent: the backlog below is quiet
  expect(
    (await context.request.patch(`/api/conversations/${conversationId}`, { data: { commanderReplies: "when_addressed" } })).status(),
  ).toBe(200);
  const post = async (body: string) =>
    expect((await context.request.post(`/api/conversations/${conversationId}/messages`, { data: { body } })).status()).toBe(201);
  // a few tall messages (people's sends are rate-limited per minute): more than a screen
  const lines = Array.from({ length: 8 }, (_, line) => `line ${line + 1} of something said earlier`).join("\n");
  for (let i = 1; i <= 8; i++) await post(`Backlog ${i}:\n${lines}`);
  await view.open(conversationId);
  await expect(view.messages.filter({ hasText: "Backlog 8:" })).toBeVisible();
  await expect(page.getByTestId("unread-divider")).toHaveCount(0);

  const scroller = page.getByTestId("message-scroller");
  await scroller.evaluate((element) => element.scrollTo({ top: 0 }));
  const jump = page.getByRole("button", { name: /^Jump to latest/ });
  await expect(jump).toBeVisible();
  await expect(jump).toHaveText("Jump to latest");

  // an agent answers while the reader is up in the backlog (their own message is not "new")
  await post("@commander say something while I read");
  await expect(jump).toHaveText(/^Jump to latest \(\d+ new\)$/, { timeout: 30_000 });
  const divider = page.getByTestId("unread-divider");
  await expect(divider).toHaveCount(1);
  // the divider stands right before the first message from someone else
  const next = divider.locator("xpath=following-sibling::*[1]");
  await expect(next).toHaveAttribute("data-author", "commander");
  // still where the reader left it
  expect(await scroller.evaluate((element) => element.scrollTop)).toBeLessThan(100);

  await jump.click();
  await expect(jump).toHaveCount(0);
  await expect.poll(() => scroller.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)).toBeLessThan(80);
  await context.close();
});

/** Puts the tab in the background (or back), as far as the page can tell; the hook listens for visibilitychange. */
async function setTabHidden(page: Page, hidden: boolean) {
  await page.evaluate((hide) => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hide });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hide ? "hidden" : "visible") });
    document.hasFocus = () => !hide;
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

const notifications = (page: Page) =>
  page.evaluate(() => (window as unknown as { __notifications: { title: string; body: string }[] }).__notifications);

test("22c. a hidden tab counts new messages, says a form waits, and notifies answers to your mentions", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  await context.addInitScript(() => {
    const seen: { title: string; body: string }[] = [];
    (window as unknown as { __notifications: typeof seen }).__notifications = seen;
    class RecordedNotification {
      static permission = "granted";
      static requestPermission = () => Promise.resolve("granted");
      constructor(title: string, options?: { body?: string }) {
        seen.push({ title, body: options?.body ?? "" });
      }
    }
    (window as unknown as { Notification: unknown }).Notification = RecordedNotification;
  });
  const view = new ConversationPage(page);
  const conversationId = await view.create("Away from the tab");
  await view.open(conversationId);
  const base = await page.title();
  expect(base).not.toMatch(/^\(\d+\)|waiting/);

  // an agent answers a mention while the tab is in the background
  await setTabHidden(page, true);
  await view.send("@researcher what is the capital of France?");
  await expect(view.messages.and(page.locator('[data-author="researcher"]')).first()).toBeAttached({ timeout: 30_000 });
  await expect.poll(() => page.title()).toMatch(/^\(\d+\) /);
  await expect.poll(async () => (await notifications(page)).map((note) => note.title)).toContain("@researcher answered you");

  // back on the tab: the count goes
  await setTabHidden(page, false);
  await expect.poll(() => page.title()).toBe(base);

  // a plan stops at a form while the tab is hidden again: the title says so and the browser tells
  await setTabHidden(page, true);
  await view.send("Compare apples, pears and plums for a picnic.", "@offline block=1");
  await expect(page.locator('[data-testid="form-card"][data-status="open"]').first()).toBeAttached({ timeout: 30_000 });
  // "Form waiting · …" or, when several steps ask at once, "3 forms waiting · …"
  await expect.poll(() => page.title()).toMatch(/^\(\d+\) (Form|\d+ forms) waiting · /);
  await expect.poll(async () => (await notifications(page)).map((note) => note.title)).toContain("A form is waiting for you");
  await setTabHidden(page, false);
  // the form still waits: the title keeps saying so, without the unread count
  await expect.poll(() => page.title()).toMatch(/^(Form|\d+ forms) waiting · /);
  expect((await page.title()).endsWith(` waiting · ${base}`)).toBe(true);
  await context.close();
});
