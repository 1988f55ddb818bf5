/**
 * A conversation of months opens with its newest messages, not its whole history: the
 * rest is a "Show earlier messages" away, the page the reader was on stays in place as
 * earlier ones arrive above it, and a link to an old message pages back until it is there.
 * An earlier plan comes without its steps, which are read when someone chooses it, and
 * the cost shown is the server's sum of runs the browser was never sent.
 */
import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

/** the snapshot's newest messages (SNAPSHOT_MESSAGES in server/protocol/limits.ts) */
const NEWEST = 200;
/** each step is two messages, the executor's mention and the agent's answer */
const STEPS = 130;

/** a usage line that reads `tokens`, as formatUsage writes them (components/conversation/usage-totals.ts) */
const usageLine = (tokens: number) =>
  new RegExp(`^${(tokens >= 1_000 ? `${(tokens / 1_000).toFixed(1)}k` : String(tokens)).replace(".", "\\.")} tokens · \\$`);

test("24. a long conversation opens at its newest messages and pages back through the rest", async ({ browser }) => {
  test.setTimeout(180_000);
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const conversationId = await view.create(`A year of notes ${Date.now().toString(36)}`);
  expect(
    (await context.request.patch(`/api/conversations/${conversationId}`, { data: { commanderReplies: "when_addressed" } })).status(),
  ).toBe(200);

  // history through the public API: one plan of many small independent steps
  const created = await context.request.post("/api/tokens", { data: { name: "history", scopes: ["read", "write"], expiresInDays: 1 } });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const bearer = { authorization: `Bearer ${token}` };
  const lastYear = await context.request.post(`/api/v1/conversations/${conversationId}/plans`, {
    headers: bearer,
    data: {
      title: "Last year's plan",
      steps: [
        { index: 1, title: "gather", assignee: "researcher", input: "gather" },
        { index: 2, title: "sum up", assignee: "writer", input: "sum up" },
      ],
    },
  });
  expect(lastYear.status()).toBe(201);
  const earlierId = ((await lastYear.json()) as { id: string }).id;
  await expect(view.planStatus).toHaveText("completed", { timeout: 60_000 });
  const assignees = ["researcher", "analyst", "writer"];
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    index: i + 1,
    title: `note ${i + 1}`,
    assignee: assignees[i % 3],
    input: `note ${i + 1}`,
  }));
  const submitted = await context.request.post(`/api/v1/conversations/${conversationId}/plans`, {
    headers: bearer,
    data: { title: "A year of notes", steps },
  });
  expect(submitted.status()).toBe(201);
  const notesId = ((await submitted.json()) as { id: string }).id;
  // the panel moves to the new plan (until then it shows the earlier one, completed)
  await expect(page.getByRole("combobox", { name: "Choose a plan" })).toHaveValue(notesId);
  await expect(view.planStatus).toHaveText("completed", { timeout: 150_000 });
  const snapshot = (await (await context.request.get(`/api/conversations/${conversationId}`)).json()) as {
    messages: { id: string }[];
    hasEarlierMessages: boolean;
    plans: { id: string; steps: unknown[] | null }[];
    runs: unknown[];
  };
  expect(snapshot.messages).toHaveLength(NEWEST);
  expect(snapshot.hasEarlierMessages).toBe(true);
  // the earlier plan ended and none of the newest messages is its own: no steps, and no ended runs
  expect(snapshot.plans.map((plan) => [plan.id, plan.steps?.length ?? null])).toEqual([
    [earlierId, null],
    [notesId, STEPS],
  ]);
  expect(snapshot.runs).toEqual([]);

  // opening it shows the newest, and the way back
  await view.open(conversationId);
  await expect(view.messages).toHaveCount(NEWEST);
  const earlier = page.getByRole("button", { name: "Show earlier messages" });
  const scroller = page.getByTestId("message-scroller");
  await scroller.evaluate((element) => element.scrollTo({ top: 0 }));
  await expect(earlier).toBeInViewport();
  const firstShown = view.messages.first();
  const firstId = await firstShown.getAttribute("data-id");
  const topBefore = (await firstShown.boundingBox())!.y;

  // the "new messages" line the read mark put on opening (the plans' messages came while away)
  const divider = page.getByTestId("unread-divider");
  const dividerBefore = { count: await divider.count(), text: (await divider.allTextContents()).join() };

  // by keyboard; what the reader was looking at stays where it was
  await earlier.focus();
  await page.keyboard.press("Enter");
  // the button reads "Loading…" while the page comes; the whole block goes once nothing is earlier
  await expect(page.getByTestId("earlier-messages")).toHaveCount(0);
  const all = await view.messageIds();
  expect(all.length).toBeGreaterThanOrEqual(STEPS * 2);
  expect(new Set(all).size).toBe(all.length);
  expect(all.slice(-NEWEST)).toEqual(snapshot.messages.map((message) => message.id));
  const anchor = page.locator(`[data-id="${firstId}"]`);
  expect(Math.abs((await anchor.boundingBox())!.y - topBefore)).toBeLessThan(40);
  // a page of earlier messages is not "new" while scrolled up: the line is as it was
  await expect(divider).toHaveCount(dividerBefore.count);
  expect((await divider.allTextContents()).join()).toBe(dividerBefore.text);

  // a link to the oldest message (a search result), opened afresh, pages back to it and shows it
  const linked = await context.newPage();
  await linked.goto(`/c/${conversationId}#message-${all[0]}`);
  const oldest = linked.locator(`[data-id="${all[0]}"]`);
  await expect(oldest).toBeInViewport();
  await expect(oldest).toHaveAttribute("data-highlighted", "true");
  // and the keyboard starts there
  await expect(oldest).toBeFocused();

  // the cost shown is what the server counts for every run, none of which the page was sent
  const usageOf = async (planId: string) => {
    const { usage } = (await (await context.request.get(`/api/v1/plans/${planId}`, { headers: bearer })).json()) as {
      usage: { tokensIn: number; tokensOut: number };
    };
    return usage.tokensIn + usage.tokensOut;
  };
  const [earlierTokens, notesTokens] = [await usageOf(earlierId), await usageOf(notesId)];
  expect(earlierTokens).toBeGreaterThan(0);
  await expect(page.getByTestId("conversation-usage")).toHaveText(usageLine(earlierTokens + notesTokens));

  // choosing the earlier plan reads its steps: its graph, progress and cost appear
  await page.getByRole("combobox", { name: "Choose a plan" }).selectOption({ label: "Last year's plan" });
  await expect(page.getByTestId("plan-progress")).toContainText("2 of 2 steps done");
  await expect(page.getByTestId("plan-usage")).toHaveText(usageLine(earlierTokens));
  await expect(view.planStatus).toHaveText("completed");
  await context.close();
});
