import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("5. a message holding script/HTML injection renders as inert text", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const conversation = new ConversationPage(page);
  await conversation.create("Hostile input");
  const payload = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> [click](javascript:window.__pwned=3) <iframe src="javascript:alert(1)"></iframe> **bold**`;
  await conversation.send(payload);

  const message = conversation.messages.filter({ hasText: "bold" }).first();
  await expect(message).toBeVisible();
  // a line that starts with markup is shown as the text it is, tags and all, never run
  await expect(message).toContainText("<script>window.__pwned = 1</script>");
  expect(await message.locator("script, iframe, img[onerror], [onerror]").count()).toBe(0);
  // the payload may render no link at all; if it does, it does not point at script, and following it runs nothing
  const links = message.locator("a");
  if ((await links.count()) > 0) {
    expect((await links.first().getAttribute("href")) ?? "").not.toMatch(/^javascript:/i);
    await links
      .first()
      .click({ timeout: 5_000 })
      .catch(() => undefined);
  }
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  await context.close();
});
