import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

test("20. a form shows who asks for which step, has typed fields, and names each problem beside its field", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const chat = new ConversationPage(page);
  await chat.create("Typed form");
  await chat.send("@commander Compare apples, pears and plums for a picnic.", "@offline block=typed");
  const form = page.locator('[data-testid="form-card"][data-status="open"]').first();
  await expect(form).toBeVisible({ timeout: 30_000 });

  // the question, the step that asks it and who asks
  await expect(form.getByTestId("form-question")).toHaveText("Which venue should the picnic use?");
  await expect(form.getByTestId("form-asked-by")).toHaveText(/^@[a-z0-9_-]+ asks for step \d+: .+/);
  const stepIndex = Number(/step (\d+)/.exec((await form.getByTestId("form-asked-by").textContent()) ?? "")?.[1]);
  const stepName = await page.getByRole("button", { name: new RegExp(`^Step ${stepIndex}: `) }).getAttribute("aria-label");
  // the node names the step, its assignee and its state (the asker is the assignee)
  const asker = /^(@[a-z0-9_-]+) asks/.exec((await form.getByTestId("form-asked-by").textContent()) ?? "")?.[1];
  expect(stepName).toContain(`Step ${stepIndex}: ${await form.getByTestId("form-step-title").textContent()}, ${asker}, blocked`);

  // one input per field type; the secret is masked
  const venue = form.getByRole("textbox", { name: "Venue" });
  const notes = form.getByRole("textbox", { name: "Notes" });
  const size = form.getByRole("combobox", { name: "Group size" });
  const budget = form.getByRole("textbox", { name: "Budget (EUR)" });
  const outdoors = form.getByRole("group", { name: "Outdoors?" });
  const key = form.getByLabel("Booking API key");
  await expect(notes).toHaveJSProperty("tagName", "TEXTAREA");
  await expect(budget).toHaveAttribute("inputmode", "decimal");
  await expect(outdoors.getByRole("radio")).toHaveCount(2);
  await expect(key).toHaveAttribute("type", "password");

  // nothing filled in: each required field says so beside itself, focus on the first
  const send = form.getByRole("button", { name: "Send answer" });
  await send.click();
  const problem = (field: string) => form.locator(`[data-testid="field-problem"][data-field="${field}"]`);
  await expect(problem("venue")).toHaveText("Venue is required");
  await expect(problem("size")).toHaveText("Group size is required");
  await expect(problem("budget")).toHaveText("Budget (EUR) is required");
  await expect(problem("outdoor")).toHaveText("Outdoors? is required");
  await expect(problem("notes")).toHaveCount(0);
  await expect(venue).toBeFocused();
  await expect(venue).toHaveAttribute("aria-invalid", "true");
  await expect(venue).toHaveAccessibleDescription("Venue is required");

  // a number that is not one
  await venue.fill("Riverside park");
  await size.selectOption("medium");
  await budget.fill("twelve");
  await outdoors.getByRole("radio", { name: "Yes" }).check();
  await send.click();
  await expect(problem("budget")).toHaveText("Budget (EUR) expected a number");
  await expect(problem("venue")).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("form-typed-problems") });

  // the server's own refusal lands beside the field it names (replayed here, as a stale client would get it)
  await budget.fill("120");
  await page.route("**/forms/*", (route) =>
    route.fulfill({
      status: 422,
      json: {
        error: {
          code: "form_answer_invalid",
          message: "The form answer is invalid:\n- venue: is not a venue on the booking list",
          issues: [{ field: "venue", message: "is not a venue on the booking list" }],
        },
      },
    }),
  );
  await send.click();
  await expect(problem("venue")).toHaveText("Venue is not a venue on the booking list");
  await page.unroute("**/forms/*");

  await notes.fill("Bring a blanket.\nAnd a kite.");
  await key.fill("sk-very-secret-1234");
  await send.click();
  const answered = page.locator(`[data-testid="form-card"][data-status="answered"]`).first();
  await expect(answered).toBeVisible();
  await expect(answered.locator('[data-secret="true"]')).toHaveText("••••");
  await expect(answered).not.toContainText("sk-very-secret-1234");
  await expect(answered).toContainText("Riverside park");
  await context.close();
});

test("20. the admin timeline draws waiting for a person apart from running, on a time axis", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const chat = new ConversationPage(page);
  await chat.create("Timeline waits");
  await chat.send("@commander Compare figs, dates and kiwis for a picnic.", "@offline block=1");
  const openForms = page.locator('[data-testid="form-card"][data-status="open"]');
  await expect(openForms.first()).toBeVisible({ timeout: 30_000 });
  // answer every form the plan raises
  while ((await chat.planStatus.textContent()) !== "completed") {
    if ((await openForms.count()) === 0) {
      await page.waitForTimeout(300);
      continue;
    }
    const formId = await openForms.first().getAttribute("data-form-id");
    const form = page.locator(`[data-testid="form-card"][data-form-id="${formId}"]`);
    await form.getByRole("textbox").first().fill("Sunny");
    await form.getByRole("button", { name: "Send answer" }).click();
    await expect(form).toHaveAttribute("data-status", "answered");
  }

  await page.goto("/admin/plans");
  await page.getByTestId("plan-history").getByRole("link", { name: /figs/ }).first().click();
  const timeline = page.getByTestId("plan-timeline");
  await expect(timeline).toBeVisible();
  // the axis starts at 0 s and its ticks rise
  const ticks = await timeline.getByTestId("timeline-tick").evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute("data-ms"))));
  expect(ticks[0]).toBe(0);
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  for (let i = 1; i < ticks.length; i++) expect(ticks[i]).toBeGreaterThan(ticks[i - 1]);
  await expect(timeline.getByTestId("timeline-tick").first()).toHaveText("0 s");
  // a step that waited for a person has a waiting segment, drawn unlike running
  const waiting = timeline.locator('[data-testid="timeline-segment"][data-kind="waiting"]').first();
  const running = timeline.locator('[data-testid="timeline-segment"][data-kind="running"]').first();
  await expect(waiting).toBeVisible();
  await expect(running).toBeVisible();
  const colour = (segment: typeof waiting) => segment.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await colour(waiting)).not.toBe(await colour(running));
  await expect(timeline.getByTestId("timeline-legend")).toContainText("waiting for a person");
  await expect(timeline.getByTestId("timeline-legend")).toContainText("retry wait");
  await page.screenshot({ path: screenshotPath("admin-plan-timeline-waits") });
  await context.close();
});
