import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { adminContext } from "./support/accounts.ts";

/** Serious and critical axe violations on the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`);
}

for (const scheme of ["light", "dark"] as const) {
  test(`18. no serious or critical accessibility violation on the main screens, ${scheme} theme`, async ({ browser }) => {
    // axe reads every element of twelve screens: slower than a journey
    test.setTimeout(600_000);
    const { context, page } = await adminContext(browser);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/");
    const chat = new ConversationPage(page);
    await chat.create(`Accessible ${scheme}`);
    await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /dark/ : /^(?!.*dark)/);
    await chat.send("@commander Compare apples, pears and plums for a picnic.");
    await expect(chat.planStatus).toHaveText("completed", { timeout: 60_000 });

    const screens: Record<string, string[]> = {};
    screens["conversation with a plan"] = await seriousViolations(page);
    const drawer = await new PlanPanel(page).openStep(1);
    screens["step drawer"] = await seriousViolations(page);
    await drawer.close();
    await page.keyboard.press("?");
    await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
    screens["keyboard help"] = await seriousViolations(page);
    await page.keyboard.press("Escape");

    for (const [name, path] of [
      ["admin plans", "/admin/plans"],
      ["admin agents", "/admin/agents"],
      ["admin usage", "/admin/usage"],
      ["admin providers", "/admin/providers"],
      ["admin invites", "/admin/invites"],
      ["admin audit log", "/admin/audit"],
      ["settings", "/settings/tokens"],
      ["not found", "/no-such-page"],
    ] as const) {
      await page.goto(path);
      await expect(page.locator("main").first()).toBeVisible();
      screens[name] = await seriousViolations(page);
    }
    await page.goto("/admin/plans");
    await page.getByTestId("plan-history").getByRole("link").first().click();
    await expect(page.getByTestId("plan-timeline")).toBeVisible();
    screens["admin plan timeline"] = await seriousViolations(page);

    const signedOut = await browser.newContext({ colorScheme: scheme });
    const signIn = await signedOut.newPage();
    await signIn.goto("/sign-in");
    await expect(signIn.getByRole("button", { name: "Sign in" })).toBeVisible();
    screens["sign-in"] = await seriousViolations(signIn);
    await signedOut.close();

    expect(screens).toEqual(Object.fromEntries(Object.keys(screens).map((name) => [name, []])));
    await context.close();
  });
}

test("18. keyboard: Alt+Down/Up move through the conversations, / focuses the composer, ? lists the shortcuts", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const chat = new ConversationPage(page);
  const firstId = await chat.create("Keys one");
  const secondId = await chat.create("Keys two");
  const order = await page
    .getByRole("navigation", { name: "Conversation list" })
    .locator('a[href^="/c/"]')
    .evaluateAll((links) => links.map((link) => new URL((link as HTMLAnchorElement).href).pathname.split("/").pop()));
  const at = order.indexOf(secondId);
  expect(at).toBeGreaterThanOrEqual(0);
  const below = order[(at + 1) % order.length];
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("Alt+ArrowDown");
  await page.waitForURL(`**/c/${below}`);
  await page.keyboard.press("Alt+ArrowUp");
  await page.waitForURL(`**/c/${secondId}`);
  expect(order).toContain(firstId);

  await page.getByTestId("conversation-title").click();
  await page.keyboard.press("/");
  await expect(chat.composer).toBeFocused();
  await expect(chat.composer).toHaveValue("");
  // typed into the composer, / and ? are just text
  await page.keyboard.type("a/b?");
  await expect(chat.composer).toHaveValue("a/b?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toHaveCount(0);

  await page.getByTestId("conversation-title").click();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help.getByTestId("keyboard-help")).toContainText("Next conversation in the list");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
  await context.close();
});
