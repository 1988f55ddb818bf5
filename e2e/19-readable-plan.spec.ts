import { expect, test, type Locator, type Page } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

/**
 * The smallest text in a step node as drawn on screen: each text element's computed
 * font size times the graph's zoom (the node's drawn width over its layout width).
 */
async function smallestTextPx(node: Locator): Promise<number> {
  return node.evaluate((element) => {
    const scale = element.getBoundingClientRect().width / (element as HTMLElement).offsetWidth;
    const sizes = [...element.querySelectorAll<HTMLElement>("*")]
      .filter((child) => [...child.childNodes].some((text) => text.nodeType === Node.TEXT_NODE && text.textContent?.trim()))
      .filter((child) => child.getClientRects().length > 0)
      .map((child) => parseFloat(getComputedStyle(child).fontSize) * scale);
    return Math.min(...sizes);
  });
}

/** Where keyboard focus is, in words: a step's index, "edge", "node" or "other". */
function focusedThing(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement;
    if (!active) return "none";
    if (active.closest(".react-flow__edge")) return "edge";
    if (active.classList.contains("react-flow__node")) return "node";
    const step = active.closest('[data-testid="plan-step"]');
    if (step && active.tagName === "BUTTON") return `step ${step.getAttribute("data-index")}`;
    return active.closest('[data-testid="plan-graph"]') ? "graph-other" : "other";
  });
}

test("19. a plan reads at 12 px or more, fills its panel, ticks while running, has a legend and one Tab stop per step", async ({
  browser,
}) => {
  const { context, page } = await adminContext(browser);
  const chat = new ConversationPage(page);
  await chat.create("Readable plan");
  await chat.send("@commander Compare apples, pears and plums for a picnic.", "@offline sleep=8000");
  await expect(chat.planSteps).toHaveCount(4, { timeout: 30_000 });
  // the synthesis waits for the three others
  await expect(page.locator('[data-testid="plan-step"][data-state="queued"]').first()).toBeVisible();

  // a running step's elapsed time ticks
  const running = page.locator('[data-testid="plan-step"][data-state="running"]').first();
  await expect(running).toBeVisible({ timeout: 30_000 });
  const elapsed = running.getByTestId("step-elapsed");
  const first = await elapsed.textContent();
  await expect.poll(() => elapsed.textContent(), { timeout: 10_000 }).not.toBe(first);

  // every step is in view at the default zoom, and its smallest text is at least 12 px
  const pane = page.locator('[data-testid="plan-graph"] .react-flow');
  const paneBox = (await pane.boundingBox())!;
  const panel = (await page.getByRole("complementary", { name: "Plan" }).boundingBox())!;
  expect(paneBox.height).toBeGreaterThan(panel.height * 0.5);
  for (const node of await chat.planSteps.all()) {
    const box = (await node.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(paneBox.x - 1);
    expect(box.x + box.width).toBeLessThanOrEqual(paneBox.x + paneBox.width + 1);
    expect(box.y + box.height).toBeLessThanOrEqual(paneBox.y + paneBox.height + 1);
    expect(await smallestTextPx(node)).toBeGreaterThanOrEqual(12);
  }

  // the legend names the seven step states and the three ways a plan ends
  const legend = page.getByTestId("plan-legend");
  await expect(legend.getByRole("list", { name: "Step states" }).getByRole("listitem")).toHaveText([
    /queued/,
    /running/,
    /waiting for a person/,
    /retrying/,
    /done/,
    /failed/,
    /skipped/,
  ]);
  await expect(legend.getByRole("list", { name: "Plan outcomes" }).getByRole("listitem")).toHaveText([
    /plan completed/,
    /plan partial/,
    /plan failed/,
  ]);

  // Tab goes once through each step's button, never to an edge or a node wrapper
  await legend.locator("summary").focus();
  const stops: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    const thing = await focusedThing(page);
    if (thing === "other" && stops.length > 0) break;
    stops.push(thing);
  }
  const stepStops = stops.filter((stop) => stop.startsWith("step "));
  expect(stepStops.sort()).toEqual(["step 1", "step 2", "step 3", "step 4"]);
  expect(stops).not.toContain("edge");
  expect(stops).not.toContain("node");
  // the focused step shows a visible outline
  await page.getByRole("button", { name: /^Step 1: / }).focus();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Shift+Tab");
  expect(
    await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    }),
  ).toBe(true);

  await expect(chat.planStatus).toHaveText("completed", { timeout: 60_000 });
  await expect(page.locator('[data-testid="plan-step"][data-state="done"]')).toHaveCount(4);
  await page.screenshot({ path: screenshotPath("plan-readable") });
  await context.close();
});

test("19. a 50-step plan opens readable at its start, with a minimap and zoom controls", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const chat = new ConversationPage(page);
  await chat.create("Fifty steps");
  const items = Array.from({ length: 49 }, (_, i) => `topic${i + 1}`);
  // filled in one go: typing 500 characters key by key is slow, and the plan is what is under test here
  await chat.composer.fill(`@commander Compare ${items.join(", ")}.`);
  await chat.composer.press("Enter");
  await expect(chat.planSteps).toHaveCount(50, { timeout: 60_000 });

  const graph = page.getByTestId("plan-graph");
  const minimap = graph.locator(".react-flow__minimap");
  await expect(minimap).toBeVisible();
  await expect(graph.getByRole("button", { name: /zoom in/i })).toBeVisible();

  // step 1 is in view at the default zoom and reads at 12 px or more
  const pane = (await graph.locator(".react-flow").boundingBox())!;
  const step1 = chat.step(1);
  const box = (await step1.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(pane.y - 1);
  expect(box.y + box.height).toBeLessThanOrEqual(pane.y + pane.height + 1);
  expect(await smallestTextPx(step1)).toBeGreaterThanOrEqual(12);

  // zooming out shows more of the plan, smaller
  const before = (await step1.boundingBox())!.width;
  await graph.getByRole("button", { name: /zoom out/i }).click();
  await expect.poll(async () => (await step1.boundingBox())!.width).toBeLessThan(before);

  await page.screenshot({ path: screenshotPath("plan-fifty-steps") });
  await context.close();
});
