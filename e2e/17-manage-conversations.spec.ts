import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

/** Opens the ⋯ settings dialog of the conversation on screen. */
async function settings(page: Page) {
  await page.getByRole("button", { name: "Conversation settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Conversation settings" });
  await expect(dialog.getByText("Loading…")).toHaveCount(0);
  return dialog;
}

async function members(page: Page) {
  await page.getByRole("button", { name: "Members" }).click();
  const dialog = page.getByRole("dialog", { name: "People and agents" });
  await expect(dialog.getByRole("region", { name: "People" })).toBeVisible();
  return dialog;
}

test("17. an owner renames, archives, adds and removes people, someone leaves, the owner deletes: every sidebar follows live", async ({
  browser,
}) => {
  const admin = await adminContext(browser);
  const bob = await invitedContext(browser, admin.page, "Bob");
  const ada = new ConversationPage(admin.page);
  const adaSidebar = new Sidebar(admin.page);
  const bobSidebar = new Sidebar(bob.page);
  const stamp = Date.now().toString(36);
  const [first, second] = [`Launch ${stamp}`, `Launch plan ${stamp}`];

  // a newcomer has a demo conversation of their own, labelled as such; nobody else sees it
  const bobDemo = bobSidebar.nav.getByRole("link").filter({ has: bob.page.getByTestId("demo-label") });
  await expect(bobDemo).toHaveCount(1);
  const bobDemoId = (await bobDemo.getAttribute("href"))!.split("/").pop()!;
  await expect(adaSidebar.nav.locator(`a[href="/c/${bobDemoId}"]`)).toHaveCount(0);

  // rename: the header and the sidebar follow
  await ada.create(first);
  let dialog = await settings(admin.page);
  await dialog.getByLabel("Title").fill(second);
  await dialog.getByRole("button", { name: "Rename" }).click();
  await expect(dialog.getByRole("status")).toHaveText("Renamed.");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(admin.page.getByTestId("conversation-title")).toHaveText(second);
  await expect(adaSidebar.link(second)).toBeVisible();
  await expect(adaSidebar.link(first)).toHaveCount(0);

  // add a person: the invitation reaches Bob's open sidebar without a reload; accepting lists it
  await ada.addMember(bob.person.email);
  await expect(bob.page.getByRole("button", { name: `Accept the invitation to ${second}` })).toBeVisible();
  await bobSidebar.acceptInvitation(second);
  const bobView = new ConversationPage(bob.page);
  await bobView.waitLive();

  // a plain member cannot manage the conversation as a whole
  dialog = await settings(bob.page);
  await expect(dialog.getByTestId("settings-owner-only")).toBeVisible();
  await dialog.getByRole("button", { name: "Close" }).click();

  // a rename by the owner reaches the member's header and sidebar live
  dialog = await settings(admin.page);
  await dialog.getByLabel("Title").fill(first);
  await dialog.getByRole("button", { name: "Rename" }).click();
  await expect(dialog.getByRole("status")).toHaveText("Renamed.");
  await expect(bob.page.getByTestId("conversation-title")).toHaveText(first);
  await expect(bobSidebar.link(first)).toBeVisible();

  // archive: out of everyone's main list, into "Archived"; and back
  await dialog.getByRole("button", { name: "Archive", exact: true }).click();
  await expect(dialog.getByRole("status")).toContainText("Archived");
  for (const page of [admin.page, bob.page]) {
    await expect(page.getByTestId("conversation-list").getByRole("link", { name: first })).toHaveCount(0);
    await expect(page.getByTestId("archived-list").getByRole("link", { name: first })).toHaveCount(1);
  }
  await dialog.getByRole("button", { name: "Unarchive" }).click();
  await expect(dialog.getByRole("status")).toContainText("main list");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(bob.page.getByTestId("conversation-list").getByRole("link", { name: first })).toHaveCount(1);

  // agents leave and join at any time; the member's composer autocomplete follows
  dialog = await members(admin.page);
  const agents = dialog.getByRole("region", { name: "Agents" });
  // Bob is typing a mention meanwhile: what his autocomplete offers follows, without a reload
  await bobView.composer.pressSequentially("@wri");
  const bobOffersWriter = bob.page.getByRole("listbox", { name: "People and agents" }).getByRole("option", { name: /@writer/ });
  await expect(bobOffersWriter).toBeVisible();
  await agents.getByRole("button", { name: "Remove @writer" }).click();
  await expect(dialog.getByRole("status")).toContainText("@writer was removed");
  await expect(bobOffersWriter).toHaveCount(0);
  await expect(agents.getByText("@writer")).toHaveCount(0);
  await expect(agents.locator("datalist option[value=writer]")).toHaveCount(1);
  await agents.getByLabel("Add an agent by handle").fill("writer");
  await agents.getByRole("button", { name: "Add agent" }).click();
  await expect(agents.getByRole("button", { name: "Remove @writer" })).toBeVisible();
  await expect(agents.locator("datalist option[value=writer]")).toHaveCount(0);
  await expect(bobOffersWriter).toBeVisible();
  await bobView.composer.fill("");

  // remove: Bob is taken home and the conversation leaves his sidebar, live
  await dialog.getByRole("button", { name: `Remove ${bob.person.name}` }).click();
  await expect(dialog.getByRole("status")).toContainText("was removed");
  await dialog.getByRole("button", { name: "Close" }).click();
  await bob.page.waitForURL((url) => url.pathname === "/");
  await expect(bobSidebar.link(first)).toHaveCount(0);

  // invited again, Bob leaves by himself; the owner's member list follows
  await ada.addMember(bob.person.email);
  await bobSidebar.acceptInvitation(first);
  dialog = await members(admin.page);
  await expect(dialog.getByTestId("member")).toHaveCount(2);
  const bobMembers = await members(bob.page);
  await bobMembers.getByRole("button", { name: "Leave conversation" }).click();
  await bob.page.waitForURL((url) => url.pathname === "/");
  await expect(bobSidebar.link(first)).toHaveCount(0);
  await expect(dialog.getByTestId("member")).toHaveCount(1);
  await dialog.getByRole("button", { name: "Close" }).click();

  // delete, after a second confirmation: gone for every member, live
  await ada.addMember(bob.person.email);
  await bobSidebar.acceptInvitation(first);
  dialog = await settings(admin.page);
  await dialog.getByRole("button", { name: "Delete conversation…" }).click();
  await expect(dialog.getByRole("alert")).toContainText("cannot be undone");
  await dialog.getByRole("button", { name: "Delete for everyone" }).click();
  await admin.page.waitForURL((url) => url.pathname === "/");
  // Bob had it open: he stays where he was, told it is gone, and can write nothing more
  await expect(bob.page.getByTestId("conversation-banner")).toHaveAttribute("data-fate", "deleted");
  await expect(bob.page.getByRole("combobox", { name: "Message" })).toBeDisabled();
  await expect(adaSidebar.link(first)).toHaveCount(0);
  await expect(bobSidebar.link(first)).toHaveCount(0);
  // Bob's own demo is untouched
  await expect(bobSidebar.nav.locator(`a[href="/c/${bobDemoId}"]`)).toHaveCount(1);

  await admin.context.close();
  await bob.context.close();
});
