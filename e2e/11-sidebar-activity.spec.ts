import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { Sidebar } from "./pages/sidebar.ts";
import { ADMIN, adminContext, invitedContext } from "./support/accounts.ts";

test("11. a plan running in another conversation badges it in the sidebar; opening it clears the badge", async ({ browser }) => {
  const admin = await adminContext(browser);
  const erin = await invitedContext(browser, admin.page, "Erin");
  const ada = new ConversationPage(admin.page);
  const sidebar = new Sidebar(admin.page);
  // unique titles: the sidebar is matched by title, and a retry runs on the same server
  const run = Date.now().toString(36);
  const busy = `Busy elsewhere ${run}`;
  const quiet = `Quiet here ${run}`;
  const busyId = await ada.create(busy);
  await ada.addMember(erin.person.email);
  await new Sidebar(erin.page).acceptInvitation(busy);
  const quietId = await ada.create(quiet);
  await expect(sidebar.link(quiet)).toHaveAttribute("aria-current", "page");
  await expect(sidebar.link(busy)).toHaveAccessibleName(busy);

  // Erin asks for a plan in the other conversation
  const erinView = new ConversationPage(erin.page);
  await erinView.open(busyId);
  // two people here: addressed to the commander by name
  await erinView.send("@commander Compare kayaks, canoes and rafts for a river trip.");
  await expect(sidebar.link(busy)).toHaveAccessibleName(Sidebar.unseenName(busy));
  // the conversation Ada is looking at gets no badge
  await expect(sidebar.link(quiet)).toHaveAccessibleName(quiet);

  // the count keeps growing while the plan runs: one update a unit of work, and four units
  // must follow one another (the request, the plan with its dispatches, the results, the
  // synthesis); results that end together may share a unit, so not one update a message
  await expect(new PlanPanel(erin.page).status).toHaveText("completed", { timeout: 60_000 });
  await expect.poll(() => sidebar.unseenCount(busy)).toBeGreaterThanOrEqual(4);
  await expect(sidebar.link(quiet)).toHaveAccessibleName(quiet);

  // opening it shows the plan and clears the badge
  await sidebar.link(busy).click();
  await admin.page.waitForURL(`**/c/${busyId}`);
  await expect(sidebar.link(busy)).toHaveAttribute("aria-current", "page");
  await expect(sidebar.link(busy)).toHaveAccessibleName(busy);
  await expect(new PlanPanel(admin.page).status).toHaveText("completed");
  await expect(
    admin.page
      .locator(`[data-testid="message"][data-author="${erin.person.name}"]`)
      .filter({ hasText: "Compare kayaks, canoes and rafts" }),
  ).toHaveCount(1);

  // back in the quiet conversation the badge stays cleared until something new happens there
  await sidebar.link(quiet).click();
  await admin.page.waitForURL(`**/c/${quietId}`);
  await ada.waitLive();
  expect(await sidebar.unseenCount(busy)).toBe(0);
  await erinView.send("One more thing");
  await expect(sidebar.link(busy)).toHaveAccessibleName(Sidebar.unseenName(busy));

  // an invitation from someone else shows up without a reload; accepting it opens the conversation
  const added = `Erin's corner ${run}`;
  await erinView.create(added);
  await erinView.addMember(ADMIN.email);
  await expect(sidebar.link(quiet)).toHaveAttribute("aria-current", "page");
  await sidebar.acceptInvitation(added);
  await erinView.send("Welcome, Ada");
  await expect(
    admin.page.locator(`[data-testid="message"][data-author="${erin.person.name}"]`).filter({ hasText: "Welcome, Ada" }),
  ).toHaveCount(1);

  // removed by its owner, Ada is taken out of the conversation and it leaves her list, live
  await erin.page.getByRole("button", { name: "Members" }).click();
  await erin.page
    .getByRole("dialog", { name: "People and agents" })
    .getByRole("button", { name: `Remove ${ADMIN.name}` })
    .click();
  await admin.page.waitForURL((url) => url.pathname === "/");
  await expect(sidebar.link(added)).toHaveCount(0);
  await admin.context.close();
  await erin.context.close();
});
