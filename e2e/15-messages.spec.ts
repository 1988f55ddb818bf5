/**
 * Messages people want to use every day (issue 11): copy a message and a code block,
 * edit and delete your own (seen live by another member), line breaks and angle
 * brackets shown as typed, a draft kept across a reload, and search opening the
 * conversation at the message.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** The person's own message holding `text` (agents may quote it in their answers). */
const own = (conversation: ConversationPage, text: string): Locator =>
  conversation.messages
    .filter({ hasText: text })
    .filter({ has: conversation.page.getByText("you", { exact: true }) })
    .last();

test("15. messages: copy, edit, delete, line breaks, angle brackets, drafts, search", async ({ browser }) => {
  test.setTimeout(180_000);
  const { context, page } = await adminContext(browser);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const conversation = new ConversationPage(page);
  const tag = `kestrel${Date.now().toString(36)}`;
  const conversationId = await conversation.create(`Messages ${tag}`);

  // ─── angle brackets and line breaks, as typed ──────────────────────────────
  await conversation.send("Use a <div> wrapper");
  await expect(own(conversation, "Use a <div> wrapper")).toBeVisible();
  await conversation.send("<img>", "the line after the tag");
  const bare = own(conversation, "the line after the tag");
  await expect(bare).toContainText("<img>");
  await expect(bare.locator("img")).toHaveCount(0);
  await conversation.send(`first line ${tag}`, "second line");
  const linesId = await own(conversation, `first line ${tag}`).getAttribute("data-id");
  const byId = (on: Page, id: string | null) => on.locator(`[data-testid="message"][data-id="${id}"]`);
  const lines = byId(page, linesId);
  expect(await lines.locator(".prose-chat").innerText()).toBe(`first line ${tag}\nsecond line`);

  // ─── copy: a whole message, and a code block alone ─────────────────────────
  await lines.hover();
  await lines.getByRole("button", { name: "Copy message" }).click();
  await expect(lines.getByRole("button", { name: "Copy message" })).toHaveText("Copied");
  expect(await clipboard(page)).toBe(`first line ${tag}\nsecond line`);
  await conversation.send("Run this:", "```", "npm run build -- --verbose", "```");
  const code = own(conversation, "Run this:");
  await code.getByRole("button", { name: "Copy code" }).click();
  expect(await clipboard(page)).toBe("npm run build -- --verbose");

  // ─── edit and delete, seen live by another member ──────────────────────────
  const member = await invitedContext(browser, page, "Mo");
  await conversation.addMember(member.person.email);
  const memberSidebar = new Sidebar(member.page);
  await memberSidebar.acceptInvitation(`Messages ${tag}`);
  const theirView = new ConversationPage(member.page);
  await theirView.open(conversationId);
  const theirLines = byId(member.page, linesId);
  await expect(theirLines).toBeVisible();
  // not their message: no edit, no delete
  await expect(theirLines.getByRole("button", { name: "Edit message" })).toHaveCount(0);
  await expect(theirLines.getByRole("button", { name: "Delete message" })).toHaveCount(0);

  await lines.getByRole("button", { name: "Edit message" }).click();
  const editBox = lines.getByRole("textbox", { name: "Edit message" });
  await editBox.fill(`first line ${tag}, edited`);
  await editBox.press("Enter");
  await expect(lines).toContainText(`first line ${tag}, edited`);
  await expect(lines.getByTestId("edited")).toBeVisible();
  await expect(theirLines).toContainText(`first line ${tag}, edited`);
  await expect(theirLines.getByTestId("edited")).toBeVisible();

  const doomed = own(conversation, "Use a <div> wrapper");
  const doomedId = await doomed.getAttribute("data-id");
  await doomed.getByRole("button", { name: "Delete message" }).click();
  await doomed.getByRole("button", { name: "Delete", exact: true }).click();
  const tombstone = byId(page, doomedId);
  await expect(tombstone.getByTestId("tombstone")).toHaveText("message deleted");
  await expect(tombstone).not.toContainText("wrapper");
  await expect(byId(member.page, doomedId).getByTestId("tombstone")).toBeVisible();

  // ─── a draft survives a reload ─────────────────────────────────────────────
  await conversation.composer.fill("half a thought,\nnot sent yet");
  await expect
    .poll(() => page.evaluate((id) => localStorage.getItem(`baton:draft:${id}`), conversationId))
    .toBe("half a thought,\nnot sent yet");
  await page.reload();
  await conversation.waitLive();
  await expect(conversation.composer).toHaveValue("half a thought,\nnot sent yet");
  await conversation.composer.fill("");

  // ─── search opens the conversation at the message ──────────────────────────
  await conversation.create(`Elsewhere ${tag}`);
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Search messages" });
  await dialog.getByRole("searchbox", { name: "Search messages" }).fill(`${tag} edited`);
  const result = dialog
    .getByTestId("search-result")
    .filter({ hasText: `Messages ${tag}` })
    .first();
  await expect(result).toBeVisible();
  await expect(result.locator("mark").first()).toHaveText(new RegExp(tag, "i"));
  await page.screenshot({ path: screenshotPath("search") });
  await result.click();
  await page.waitForURL(new RegExp(`/c/${conversationId}#message-`));
  const target = page.locator('[data-testid="message"][data-highlighted="true"]');
  await expect(target).toHaveAttribute("data-id", linesId ?? "");
  await expect(target).toContainText(`first line ${tag}, edited`);
  await expect(target).toBeInViewport();
  await expect(target).toBeFocused();
  // the other member's search finds it too; an outsider's finds nothing
  const outsider = await invitedContext(browser, page, "Otto");
  const found = await outsider.context.request.get(`/api/search?q=${tag}`);
  expect(found.status()).toBe(200);
  expect(((await found.json()) as { results: unknown[] }).results).toEqual([]);
  const memberFound = await member.context.request.get(`/api/search?q=${tag}`);
  expect(((await memberFound.json()) as { results: { conversationId: string }[] }).results.map((r) => r.conversationId)).toContain(
    conversationId,
  );

  await outsider.context.close();
  await member.context.close();
  await context.close();
});
