/**
 * Admin → Agents: an agent is disabled (greyed in the list; a mention of it gets a note
 * instead of an answer), enabled again, and deleted after a confirmation, while its old
 * messages keep their author. The commander offers neither. At 1280×800 and 390×844.
 */
import { expect, test, type Page } from "@playwright/test";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";
import { ConversationPage } from "./pages/conversation-page.ts";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function createAgent(page: Page, handle: string) {
  await page.goto("/admin/agents");
  await page.getByRole("button", { name: "+ New agent" }).click();
  const form = page.getByRole("form", { name: "New agent" });
  await form.getByLabel("Handle").fill(handle);
  await form.getByLabel("Name").fill("Scribe");
  await form.getByLabel("Model", { exact: true }).fill("offline");
  await form.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("form", { name: `Edit @${handle}` })).toBeVisible();
}

const agentState = (page: Page, handle: string) => page.getByRole("region", { name: `State of @${handle}` });

test("32a. disable, enable and delete an agent at 1280×800; the commander cannot be", async ({ browser }) => {
  test.setTimeout(180_000);
  const { context, page } = await adminContext(browser);
  await page.setViewportSize(LAPTOP);
  const handle = `scribe-${Date.now().toString(36)}`;
  await createAgent(page, handle);

  // a conversation with it (the new-conversation dialog takes every enabled agent), and one answer from it
  const conversation = new ConversationPage(page);
  const conversationId = await conversation.create(`Notes ${handle}`);
  await conversation.send(`@${handle} take notes please`);
  const answers = page.locator(`[data-testid="message"][data-author="${handle}"]`);
  await expect(answers.first()).toBeVisible();

  // disabled: greyed and marked in the list, and a mention gets a note instead of an answer
  await page.goto("/admin/agents");
  await page.getByRole("button", { name: new RegExp(`@${handle}`) }).click();
  await agentState(page, handle).getByRole("button", { name: "Disable" }).click();
  const item = page.getByRole("button", { name: new RegExp(`@${handle}`) });
  await expect(item).toHaveAttribute("data-disabled", "true");
  await expect(item.getByText("disabled", { exact: true })).toBeVisible();
  await expect(agentState(page, handle).getByTestId("agent-state")).toContainText("Disabled");
  await page.screenshot({ path: screenshotPath("admin-agent-disabled-1280") });

  await conversation.open(conversationId);
  await conversation.send(`@${handle} are you there?`);
  await expect(page.getByTestId("message").filter({ hasText: `@${handle} is disabled, so it will not answer.` })).toBeVisible();
  await expect(answers).toHaveCount(1);

  // the commander: nothing to disable or delete, and it says why
  await page.goto("/admin/agents");
  await page.getByRole("button", { name: /@commander/ }).click();
  await expect(agentState(page, "commander").getByTestId("agent-state")).toContainText("cannot be disabled or deleted");
  await expect(agentState(page, "commander").getByRole("button")).toHaveCount(0);

  // enabled again, then deleted after a confirmation
  await page.getByRole("button", { name: new RegExp(`@${handle}`) }).click();
  await agentState(page, handle).getByRole("button", { name: "Enable" }).click();
  await expect(page.getByRole("button", { name: new RegExp(`@${handle}`) })).not.toHaveAttribute("data-disabled", "true");
  await agentState(page, handle).getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: `Delete @${handle}?` });
  await expect(dialog).toContainText("Its old messages keep its name");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await agentState(page, handle).getByRole("button", { name: "Delete…" }).click();
  await dialog.getByRole("button", { name: `Delete @${handle}` }).click();
  await expect(page.getByRole("button", { name: new RegExp(`@${handle}`) })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("button", { name: /@commander/ })).toBeVisible();
  await expect(page.getByRole("button", { name: new RegExp(`@${handle}`) })).toHaveCount(0);

  // its old answer keeps its author; the audit log says what happened
  await conversation.open(conversationId);
  await expect(answers.first()).toContainText("Scribe");
  await page.goto("/admin/audit?kind=agent");
  for (const sentence of [`disabled the agent @${handle}.`, `enabled the agent @${handle} again.`, `deleted the agent @${handle}.`]) {
    await expect(page.getByTestId("audit-sentence").filter({ hasText: sentence })).toHaveCount(1);
  }
  await context.close();
});

test("32b. at 390×844 the state controls and the delete dialog fit the phone", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  await page.setViewportSize(PHONE);
  const handle = `temp-${Date.now().toString(36)}`;
  await createAgent(page, handle);
  const state = agentState(page, handle);
  await state.getByRole("button", { name: "Disable" }).click();
  await expect(state.getByTestId("agent-state")).toContainText("Disabled");
  await state.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: `Delete @${handle}?` });
  const confirm = dialog.getByRole("button", { name: `Delete @${handle}` });
  await expect(confirm).toBeInViewport();
  const box = await dialog.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
  await page.screenshot({ path: screenshotPath("admin-agent-delete-phone") });
  await confirm.click();
  await expect(page.getByRole("button", { name: new RegExp(`@${handle}`) })).toHaveCount(0);
  await context.close();
});
