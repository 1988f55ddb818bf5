/**
 * Screens at the edges of what they show, on a phone (390×844) and at 1280×800: the
 * reaction picker of the message right under the conversation header stays where a
 * finger can reach it, and the usage chart by model names every model on its axis,
 * none of them dropped for lack of room.
 */
import { expect, test, type Locator } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import type { AdminAgent } from "../server/protocol/rest/admin.ts";
import { adminContext } from "./support/accounts.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

type Box = { x: number; y: number; width: number; height: number };

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, "the element is laid out").not.toBeNull();
  return box!;
}

const inside = (inner: Box, outer: Box) =>
  inner.y >= outer.y - 0.5 &&
  inner.y + inner.height <= outer.y + outer.height + 0.5 &&
  inner.x >= outer.x - 0.5 &&
  inner.x + inner.width <= outer.x + outer.width + 0.5;

/** Scrolls the message list (only it: scrollIntoView would move the page too) so `message` is at its top or bottom edge. */
function scrollListTo(message: Locator, edge: "top" | "bottom") {
  return message.evaluate((element, where) => {
    const list = element.closest<HTMLElement>('[data-testid="message-scroller"]')!;
    const [item, view] = [element.getBoundingClientRect(), list.getBoundingClientRect()];
    list.scrollTop += where === "top" ? item.top - view.top : item.bottom - view.bottom;
  }, edge);
}

/** notes in the conversation of 33a: enough below the 14th to scroll it to the top at 1280×800 */
const NOTES = 24;

test("33a. the reaction picker of the message right under the header opens where it can be tapped, on a phone and at 1280", async ({
  browser,
}) => {
  // a 429 on the notes may wait out the rest of a minute
  test.setTimeout(150_000);
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  const conversationId = await view.create(`Long enough ${Date.now().toString(36)}`);
  const settings = await context.request.patch(`/api/conversations/${conversationId}`, { data: { commanderReplies: "when_addressed" } });
  expect(settings.status()).toBe(200);
  // through the API: a person's messages are limited to 30 a minute, page and tokens together,
  // so the notes are tall (a list under each) and few, and a 429 is waited out as its
  // Retry-After says (earlier specs' messages by the same person may share the minute)
  const created = await context.request.post("/api/tokens", { data: { name: "notes", scopes: ["write"], expiresInDays: 1 } });
  expect(created.status()).toBe(201);
  const bearer = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
  for (let i = 1; i <= NOTES; i++) {
    for (;;) {
      const posted = await context.request.post(`/api/v1/conversations/${conversationId}/messages`, {
        headers: bearer,
        data: { body: `note ${i}\n\n- first point\n- second point\n- third point` },
      });
      if (posted.status() === 429) {
        await page.waitForTimeout(1_000 * Number(posted.headers()["retry-after"] ?? 5));
        continue;
      }
      expect(posted.status()).toBe(201);
      break;
    }
  }
  const scroller = page.getByTestId("message-scroller");
  const note = (n: number) => view.messages.filter({ has: page.getByText(`note ${n}`, { exact: true }) });
  for (const [size, n] of [
    [PHONE, 12],
    [DESKTOP, 14],
  ] as const) {
    await page.setViewportSize(size);
    await view.open(conversationId);
    const target = note(n);
    // scrolled so that this message sits right under the header, earlier ones above it out of view
    await scrollListTo(target, "top");
    expect(Math.abs((await boxOf(target)).y - (await boxOf(scroller)).y)).toBeLessThan(2);

    await target.getByRole("button", { name: "Add reaction" }).click();
    const picker = target.getByRole("group", { name: "Pick a reaction" });
    await expect(picker).toBeVisible();
    // the whole picker is inside the visible list, not under the header above it
    expect(inside(await boxOf(picker), await boxOf(scroller))).toBe(true);
    await expect(picker).toHaveAttribute("data-placement", "below");
    await picker.getByRole("button", { name: "React with 👍" }).click();
    await expect(target.getByTestId("reaction-chip")).toHaveAccessibleName(/^👍 1:/);

    // the last message, at the bottom, still opens upward, inside the list too
    const last = note(NOTES);
    await scrollListTo(last, "bottom");
    await last.getByRole("button", { name: "Add reaction" }).click();
    const lastPicker = last.getByRole("group", { name: "Pick a reaction" });
    await expect(lastPicker).toHaveAttribute("data-placement", "above");
    expect(inside(await boxOf(lastPicker), await boxOf(scroller))).toBe(true);
    await page.keyboard.press("Escape");
  }
  await context.close();
});

test("33b. Admin → Usage by model names every model on its axis, on a phone and at 1280", async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await adminContext(browser);
  // three models in the bill: the agents' own, and the ones light and deep steps run on
  const before = (await (await context.request.get("/api/admin/effort-models")).json()) as { effortModels: object };
  const effort = await context.request.put("/api/admin/effort-models", { data: { light: "offline:light", deep: "offline:deep" } });
  expect(effort.status()).toBe(200);
  // and a fourth: the model a step of @researcher escalates to after malformed tool calls
  const agents = (await (await context.request.get("/api/admin/agents")).json()) as { agents: AdminAgent[] };
  const researcher = agents.agents.find((agent) => agent.handle === "researcher")!;
  const { id: researcherId, updatedAt: _updatedAt, disabledAt: _disabledAt, ...researcherInput } = researcher;
  const saveResearcher = (escalationModel: string | null) =>
    context.request.put(`/api/admin/agents/${researcherId}`, { data: { ...researcherInput, escalationModel } });
  expect((await saveResearcher("offline:strong")).status()).toBe(200);
  const created = await context.request.post("/api/tokens", { data: { name: "usage", scopes: ["read", "write"], expiresInDays: 1 } });
  expect(created.status()).toBe(201);
  const bearer = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
  const conversation = await context.request.post("/api/v1/conversations", {
    headers: bearer,
    data: { title: `Usage ${Date.now().toString(36)}`, agents: ["researcher", "writer"] },
  });
  expect(conversation.status()).toBe(201);
  const { id } = (await conversation.json()) as { id: string };
  const submitted = await context.request.post(`/api/v1/conversations/${id}/plans`, {
    headers: bearer,
    data: {
      title: "Three efforts",
      steps: [
        { index: 1, title: "light", assignee: "researcher", input: "look", effort: "light" },
        { index: 2, title: "deep", assignee: "writer", input: "think", effort: "deep", wait_for: [] },
        { index: 3, title: "standard", assignee: "writer", input: "write", wait_for: [] },
        { index: 4, title: "escalated", assignee: "researcher", input: "@offline fail=malformed fail_attempts=1\nfind", wait_for: [] },
      ],
    },
  });
  expect(submitted.status()).toBe(201);
  const planId = ((await submitted.json()) as { id: string }).id;
  await expect
    .poll(
      async () => ((await (await context.request.get(`/api/v1/plans/${planId}`, { headers: bearer })).json()) as { status: string }).status,
      {
        timeout: 60_000,
      },
    )
    .toBe("completed");

  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await page.goto("/admin/usage");
    const byModel = page.getByRole("region", { name: "By model" });
    await expect(byModel.locator(".recharts-bar-rectangle").first()).toBeVisible();
    const labels = byModel.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
    for (const model of ["offline", "offline:light", "offline:deep", "offline:strong"]) {
      await expect(labels.filter({ hasText: new RegExp(`^${model}$`) }), model).toHaveCount(1);
    }
    // every label is inside the chart and none covers another: labels across are apart,
    // tilted ones (parallel, anchored at their end) are a line apart across their slant
    const chart = await boxOf(byModel);
    const boxes = (await Promise.all((await labels.all()).map(boxOf))).sort((a, b) => a.x + a.width - (b.x + b.width));
    for (const box of boxes) expect(inside(box, chart)).toBe(true);
    const rotation = /rotate\((-?[\d.]+)/.exec((await labels.first().getAttribute("transform")) ?? "");
    const tilt = Math.abs(Number(rotation?.[1] ?? 0));
    for (const [a, b] of boxes.slice(1).map((box, i) => [boxes[i], box] as const)) {
      if (tilt === 0) expect(a.x + a.width).toBeLessThanOrEqual(b.x);
      else expect((b.x + b.width - (a.x + a.width)) * Math.sin((tilt * Math.PI) / 180)).toBeGreaterThanOrEqual(12);
    }
  }
  expect((await context.request.put("/api/admin/effort-models", { data: before.effortModels })).status()).toBe(200);
  expect((await saveResearcher(researcher.escalationModel ?? null)).status()).toBe(200);
  await context.close();
});

test("33c. on a phone, every control of an admin's conversation header is wholly on screen", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const view = new ConversationPage(page);
  await view.create(`Header ${Date.now().toString(36)}`);
  // with a plan, so the Plan button counts it
  await view.send("Compare Postgres, MySQL and SQLite for a small team.");
  await page.setViewportSize(PHONE);
  const header = page.getByTestId("conversation-header");
  await expect(header.getByRole("button", { name: "Show plan" })).toHaveText("Plan (1)", { timeout: 30_000 });
  await expect(header.getByTestId("plan-history-link")).toBeVisible();
  for (const control of await header.locator("button:visible, a:visible").all()) {
    await expect(control).toBeInViewport({ ratio: 1 });
  }
  expect((await boxOf(page.getByTestId("conversation-title"))).width).toBeGreaterThan(90);
  await context.close();
});
