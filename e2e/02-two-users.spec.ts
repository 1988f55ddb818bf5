import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

test("2. two users in two browser contexts see the same messages and step updates live", async ({ browser }) => {
  const admin = await adminContext(browser);
  const bob = await invitedContext(browser, admin.page, "Bob");
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create("Shared research");
  await ada.addMember(bob.person.email);
  await new Sidebar(bob.page).acceptInvitation("Shared research");

  const bobView = new ConversationPage(bob.page);
  await bobView.open(conversationId);

  await bobView.send("Hello from Bob");
  await expect(
    admin.page.locator(`[data-testid="message"][data-author="${bob.person.name}"]`).filter({ hasText: "Hello from Bob" }),
  ).toHaveCount(1);

  // a typed @commander (in full, not picked) is a mention like one from the autocomplete
  await ada.send("@commander Compare Rust, Go and Zig for a CLI tool.", "@offline sleep=3000");
  await expect(
    bob.page.locator('[data-testid="message"][data-author="Ada Admin"]').filter({ hasText: "Compare Rust, Go and Zig" }),
  ).toHaveCount(1);
  await expect(bobView.planSteps).toHaveCount(4);
  await expect(bob.page.locator('[data-testid="plan-step"][data-status="in_progress"]').first()).toBeVisible();
  await expect(bobView.planStatus).toHaveText("completed", { timeout: 60_000 });
  await expect(ada.planStatus).toHaveText("completed");
  expect(await bobView.stepStatuses()).toEqual(await ada.stepStatuses());
  expect(await bobView.messageIds()).toEqual(await ada.messageIds());
  await bobView.screenshot("two-users");

  // a structured mention picked from the autocomplete starts that agent's run
  await bobView.composer.click();
  await bobView.mention("res", "researcher");
  await bobView.composer.pressSequentially("what is a B-tree?");
  await bobView.composer.press("Enter");
  await expect(admin.page.locator('[data-testid="message"][data-author="researcher"]').last()).toBeVisible();
  await expect(ada.messages.filter({ hasText: "what is a B-tree?" }).locator(".mention")).toHaveText("@researcher");

  // an attachment: uploaded by one, previewed by the other
  await ada.page
    .getByTestId("file-input")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("budget: 3 weeks") });
  await expect(ada.page.getByRole("list", { name: "Files to send" })).toContainText("notes.txt");
  await ada.send("Here are my notes");
  const withFile = bobView.messages.filter({ hasText: "Here are my notes" });
  await withFile.getByRole("button", { name: "Preview" }).click();
  await expect(withFile.locator("pre")).toHaveText("budget: 3 weeks");
  await admin.context.close();
  await bob.context.close();
});
