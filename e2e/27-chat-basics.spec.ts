import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

test.use({ viewport: { width: 1280, height: 800 } });

test("27. chat basics between two people: mention a person, typing, reactions, grouping", async ({ browser }) => {
  const admin = await adminContext(browser);
  const bob = await invitedContext(browser, admin.page, "Bob");
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create("Chat basics");
  // two people talking: the commander answers only when addressed, so their messages stay theirs
  expect(
    (await admin.context.request.patch(`/api/conversations/${conversationId}`, { data: { commanderReplies: "when_addressed" } })).status(),
  ).toBe(200);
  await ada.addMember(bob.person.email);
  await new Sidebar(bob.page).acceptInvitation("Chat basics");
  const bobHandle = bob.person.name.replace(/\s+/g, "").toLowerCase();

  // @ offers the people of the conversation too; the keyboard picks one
  await bob.page.goto("/");
  await ada.composer.click();
  await ada.composer.pressSequentially("@bob");
  const picker = admin.page.getByRole("listbox", { name: "People and agents" });
  await expect(picker.getByRole("option", { name: new RegExp(`@${bobHandle}`) })).toHaveAttribute("aria-selected", "true");
  await ada.composer.press("Enter");
  await expect(ada.composer).toHaveValue(`@${bobHandle} `);
  await ada.composer.pressSequentially("can you review the draft?");
  await ada.composer.press("Enter");
  const mentioning = ada.messages.filter({ hasText: "can you review the draft?" });
  await expect(mentioning.locator(".mention")).toHaveText(`@${bobHandle}`);

  // Bob, elsewhere in the app, is told: an @ badge on the conversation until he opens it
  const link = bob.page.getByTestId("conversation-list").getByRole("link", { name: /Chat basics/ });
  await expect(link.getByTestId("mention-badge")).toHaveText("@1");
  await link.click();
  const bobView = new ConversationPage(bob.page);
  await bobView.waitLive();
  await expect(link.getByTestId("mention-badge")).toHaveCount(0);
  // the tab names the conversation, also after a client-side navigation
  await expect(bob.page).toHaveTitle(/(^|\) )Chat basics · Baton$/);

  // typing is shown to the others, never to oneself
  await bobView.composer.click();
  await bobView.composer.pressSequentially("looking at it now");
  await expect(admin.page.getByTestId("typing-indicator")).toHaveText(`${bob.person.name} is typing…`);
  await expect(bob.page.getByTestId("typing-indicator")).toHaveText("");
  await bobView.composer.press("Enter");
  // the message ends the notice as it arrives, not when the notice expires (6 s after the last one)
  await expect(ada.messages.filter({ hasText: "looking at it now" })).toBeVisible();
  await expect(admin.page.getByTestId("typing-indicator")).toHaveText("", { timeout: 2_000 });

  // a reaction: counts and who, live on both sides; pressing one's own takes it back
  const onBobsSide = bobView.messages.filter({ hasText: "looking at it now" });
  await onBobsSide.hover();
  await onBobsSide.getByRole("button", { name: "Add reaction" }).click();
  await bob.page.getByRole("button", { name: "React with 👍" }).click();
  const adaChip = ada.messages.filter({ hasText: "looking at it now" }).getByTestId("reaction-chip");
  await expect(adaChip).toHaveAccessibleName(`👍 1: ${bob.person.name}`);
  await adaChip.click();
  await expect(onBobsSide.getByTestId("reaction-chip")).toHaveAccessibleName(`👍 2: you, Ada Admin`);
  await expect(adaChip).toHaveAttribute("aria-pressed", "true");
  await adaChip.click();
  await expect(onBobsSide.getByTestId("reaction-chip")).toHaveAccessibleName("👍 1: you");

  // two messages in a row from one person read as one block: the name is shown once
  await ada.send("First thought");
  await ada.send("Second thought");
  await expect(bobView.messages.filter({ hasText: "Second thought" })).toHaveAttribute("data-continued", "true");
  await expect(bobView.messages.filter({ hasText: "First thought" })).not.toHaveAttribute("data-continued", "true");

  // what is typed while a message is on its way stays in the composer when the server answers
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await admin.page.route(`**/api/conversations/${conversationId}/messages`, async (route) => {
    if (route.request().method() === "POST") await held;
    await route.continue();
  });
  await ada.composer.pressSequentially("Sent first");
  await ada.composer.press("Enter");
  await ada.composer.pressSequentially("typed meanwhile");
  release();
  await expect(ada.messages.filter({ hasText: "Sent first" })).toBeVisible();
  await expect(ada.composer).toHaveValue("typed meanwhile");
  await admin.page.unroute(`**/api/conversations/${conversationId}/messages`);
  expect(conversationId).toBeTruthy();
  await admin.context.close();
  await bob.context.close();
});

test("27b. a person changes their password on the profile page, linked from the user menu", async ({ browser }) => {
  const admin = await adminContext(browser);
  const bob = await invitedContext(browser, admin.page, "Bob");
  await bob.page.goto("/");
  await bob.page.getByRole("link", { name: "Profile" }).click();
  await expect(bob.page.getByTestId("profile-email")).toHaveText(bob.person.email);
  const form = bob.page.getByRole("form", { name: "Change password" });
  await form.getByLabel("Current password").fill("not my password");
  await form.getByLabel("New password", { exact: true }).fill("a brand new passphrase");
  await form.getByLabel("New password, again").fill("a brand new passphrase");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByRole("alert")).not.toBeEmpty();
  await form.getByLabel("Current password").fill(bob.person.password);
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByRole("status")).toHaveText(/Password changed/);
  await admin.context.close();
  await bob.context.close();
});
