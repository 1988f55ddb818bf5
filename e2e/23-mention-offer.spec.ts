/**
 * Typing `@handle` of an agent that is not in the conversation: the composer says so
 * while it is typed, before anything is sent, and adds it on a click — after which the
 * same message, sent as typed, asks that agent.
 */
import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

test("23. an agent outside the conversation is offered while its handle is typed, and asked once added", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const created = await context.request.post("/api/conversations", {
    data: { title: "Without the writer", agentHandles: ["researcher"] },
  });
  expect(created.status()).toBe(201);
  const { id: conversationId } = (await created.json()) as { id: string };
  const view = new ConversationPage(page);
  await view.open(conversationId);

  const offer = page.getByTestId("mention-offer");
  await view.composer.click();
  // an agent already here, and a handle nobody has: nothing to offer
  await view.composer.pressSequentially("@researcher and @nobody ");
  await expect(offer).toHaveCount(0);
  await view.composer.pressSequentially("and @writer, please draft a haiku");
  await expect(offer).toContainText("@writer is not in this conversation");
  // nothing was sent yet: this is the composer's own reading
  await expect(view.messages).toHaveCount(0);

  await offer.getByRole("button", { name: "Add @writer to this conversation?" }).click();
  await expect(offer).toHaveCount(0);
  await view.composer.press("Enter");
  await expect(view.composer).toHaveValue("");
  // sent as typed, the handle is now a mention: the writer answers, and no offer follows
  await expect(page.locator('[data-testid="message"][data-author="writer"]').first()).toBeAttached({ timeout: 30_000 });
  await expect(offer).toHaveCount(0);
  await context.close();
});
