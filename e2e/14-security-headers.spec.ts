import { expect, test } from "@playwright/test";
import { ConversationPage } from "./pages/conversation-page.ts";
import { PlanPanel } from "./pages/plan-panel.ts";
import { adminContext } from "./support/accounts.ts";

const nonceOf = (policy: string) => /'nonce-([^']+)'/.exec(policy)?.[1];

test("14a. pages carry a per-request CSP nonce on every script, no framing, no referrer, no sniffing, no HSTS over http", async ({
  request,
}) => {
  const first = await request.get("/sign-in");
  const second = await request.get("/sign-in");
  const policy = first.headers()["content-security-policy"] ?? "";
  const nonce = nonceOf(policy);
  expect(nonce).toBeTruthy();
  expect(nonceOf(second.headers()["content-security-policy"] ?? "")).not.toBe(nonce);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("'strict-dynamic'");
  expect(policy).not.toContain("'unsafe-eval'"); // production
  // every script of the page, Next's and the theme script alike, carries this response's nonce
  const html = await first.text();
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(2);
  for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
  for (const response of [first, await request.get("/api/agents")]) {
    expect(response.headers()["x-content-type-options"]).toBe("nosniff");
    expect(response.headers()["referrer-policy"]).toBe("same-origin");
  }
  expect(first.headers()["x-frame-options"]).toBe("DENY");
  // served over http here; a client's own X-Forwarded-Proto is not believed without BATON_TRUST_PROXY
  expect(first.headers()["strict-transport-security"]).toBeUndefined();
  const forged = await request.get("/sign-in", { headers: { "X-Forwarded-Proto": "https" } });
  expect(forged.headers()["strict-transport-security"]).toBeUndefined();
});

test("14b. the app works under its CSP: live plan, graph, step drawer and admin charts, with no violation", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`),
    );
  });
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) consoleErrors.push(message.text());
  });
  // null would mean the listener is missing, so an empty list really is "nothing blocked"
  const violations = () => page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? null);

  await page.goto("/");
  const conversation = new ConversationPage(page);
  await conversation.create("Under a policy");
  await conversation.send("Compare tea, coffee and cocoa for a long night.");
  const plan = new PlanPanel(page);
  await expect(plan.status).toHaveText("completed", { timeout: 60_000 });
  const drawer = await plan.openStep(1);
  await expect(drawer.dialog.getByTestId("rendered-input")).toContainText("tea");
  expect(await violations()).toEqual([]);

  await page.goto("/admin/usage");
  await expect(page.locator(".recharts-bar-rectangle").first()).toBeVisible();
  expect(await violations()).toEqual([]);
  expect(consoleErrors).toEqual([]);
  await context.close();
});
