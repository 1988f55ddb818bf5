import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

const divider = (page: Page) => page.getByTestId("unread-divider");

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`30. "new messages" since the last read, for two people (${viewport.width}×${viewport.height})`, async ({ browser }) => {
    const admin = await adminContext(browser);
    const bo = await invitedContext(browser, admin.page, "Bo");
    // set-up at desktop size; Bo reads at the size under test
    await admin.page.setViewportSize({ width: 1280, height: 800 });
    await bo.page.setViewportSize({ width: 1280, height: 800 });
    const ada = new ConversationPage(admin.page);
    const title = `Unread ${Date.now().toString(36)}`;
    const conversationId = await ada.create(title);
    // people talking among themselves: the commander answers only when addressed, so only their words arrive
    const origin = new URL(admin.page.url()).origin;
    const quiet = await admin.page.request.patch(`/api/conversations/${conversationId}`, {
      data: { commanderReplies: "when_addressed" },
      headers: { origin },
    });
    expect(quiet.ok()).toBe(true);
    await ada.addMember(bo.person.email);
    await new Sidebar(bo.page).acceptInvitation(title);
    const boView = new ConversationPage(bo.page);
    await boView.waitLive();
    // Bo has read it (opening it marks it), then leaves
    await ada.send("Before Bo left");
    await expect(boView.messages.filter({ hasText: "Before Bo left" })).toHaveCount(1);
    await bo.page.waitForTimeout(1500); // the debounced mark of what Bo saw
    await bo.page.goto("/settings/tokens");

    // few enough that Ada stays under the message limit (30 a minute) across both viewports' runs
    const lines = Array.from({ length: 6 }, (_, i) => `Line ${i + 1} while Bo was away`);
    for (const line of lines) await ada.send(line);
    await expect(ada.messages.filter({ hasText: lines.at(-1)! })).toBeVisible();
    // Ada's own messages are never new to her
    await admin.page.reload();
    await ada.waitLive();
    await expect(divider(admin.page)).toHaveCount(0);

    // Bo comes back: the line sits above the first message he missed, says how many, and can be jumped past
    await bo.page.setViewportSize(viewport);
    await boView.open(conversationId);
    await expect(divider(bo.page)).toHaveText(`${lines.length} new messages`);
    await expect(divider(bo.page)).toBeInViewport();
    const firstNew = bo.page.locator('[data-testid="unread-divider"] + li');
    await expect(firstNew).toContainText(lines[0]);
    const jump = bo.page.getByRole("button", { name: /Jump to latest/ });
    if (await jump.isVisible()) {
      await jump.click();
      await expect(boView.messages.filter({ hasText: lines.at(-1)! })).toBeInViewport();
    }

    // read now: the next visit has no line
    await bo.page.waitForTimeout(1500);
    await bo.page.reload();
    await boView.waitLive();
    await expect(boView.messages.filter({ hasText: lines.at(-1)! })).toBeVisible();
    await expect(divider(bo.page)).toHaveCount(0);

    // seen live while focused at the bottom: read too
    await ada.send("Seen as it came");
    await expect(boView.messages.filter({ hasText: "Seen as it came" })).toBeVisible();
    await bo.page.waitForTimeout(1500);
    await bo.page.reload();
    await boView.waitLive();
    await expect(divider(bo.page)).toHaveCount(0);
    await admin.context.close();
    await bo.context.close();
  });
}

test("30b. the members dialog's people picker: find a teammate by part of a name, pick with the keyboard", async ({ browser }) => {
  const admin = await adminContext(browser);
  const cleo = await invitedContext(browser, admin.page, "Cleo");
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    // created at desktop size (the sidebar is a drawer on a phone), picked at the size under test
    await admin.page.setViewportSize({ width: 1280, height: 800 });
    const ada = new ConversationPage(admin.page);
    const title = `Picker ${viewport.width} ${Date.now().toString(36)}`;
    await ada.create(title);
    await admin.page.setViewportSize(viewport);
    await admin.page.getByRole("button", { name: "Members" }).click();
    const dialog = admin.page.getByRole("dialog", { name: "People and agents" });
    const field = dialog.getByRole("combobox", { name: "Add a person by name or email" });
    // part of the name, in another case: the workspace's people come up as options
    await field.fill(cleo.person.name.slice(0, 4).toLowerCase());
    const option = dialog.getByRole("option", { name: new RegExp(cleo.person.email) });
    await expect(option).toBeVisible();
    await expect(option).toBeInViewport();
    await field.press("ArrowDown");
    await expect(option).toHaveAttribute("aria-selected", "true");
    await field.press("Enter");
    await expect(field).toHaveValue(cleo.person.email);
    await field.press("Enter");
    await expect(dialog.getByText(`Invitation sent to ${cleo.person.email}.`)).toBeVisible();
    await expect(field).toHaveValue("");
    // people already in are shown as such, not offered
    await field.fill("Ada");
    await expect(dialog.getByRole("option", { name: /Ada Admin.*already in/ })).toHaveAttribute("aria-disabled", "true");
    await dialog.getByRole("button", { name: "Close" }).click();
    // the invitation reaches Cleo, who joins
    await new Sidebar(cleo.page).acceptInvitation(title);
  }
  await admin.context.close();
  await cleo.context.close();
});
