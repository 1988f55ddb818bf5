/**
 * Accounts for the scenarios. The first account (admin) is created once per server;
 * everyone else signs up through an invite link the admin makes, as people would.
 */
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { SignUpPage } from "../pages/auth-page.ts";
import { screenshotPath } from "./screenshots.ts";

export const ADMIN = { name: "Ada Admin", email: "ada@example.com", password: "correct horse battery" };

let counter = 0;
export function newPerson(label: string) {
  counter += 1;
  const id = `${label.toLowerCase()}-${Date.now().toString(36)}-${counter}`;
  return { name: `${label} ${counter}`, email: `${id}@example.com`, password: "a long enough password" };
}

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

/**
 * The admin's signed-in cookies, kept for the rest of this worker once the sign-in
 * form has been used. better-auth counts sign-ins per address in a rolling window
 * (10 until a full minute passes without one), so a suite that signed in through
 * the form for every context would lock itself out part-way.
 */
let adminSession: StorageState | null = null;

/**
 * A browser context signed in as the admin: signs the admin up if this server is new,
 * signs in through the form once per worker, and reuses that session afterwards.
 */
export async function adminContext(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  if (adminSession) {
    const context = await browser.newContext({ storageState: adminSession });
    const page = await context.newPage();
    await page.goto("/");
    if (!new URL(page.url()).pathname.startsWith("/sign-")) return { context, page };
    // the session is gone (another server, or it expired): sign in again
    adminSession = null;
    await context.close();
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-in");
  if (page.url().includes("/sign-up")) {
    await page.screenshot({ path: screenshotPath("sign-up") });
    await new SignUpPage(page).signUp(ADMIN);
  } else {
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-"));
    adminSession = await context.storageState();
  }
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-"));
  return { context, page };
}

/** Creates an invite as the admin (whose page is given) and signs a new person up through it. */
export async function invitedContext(browser: Browser, adminPage: Page, label: string) {
  const origin = new URL(adminPage.url()).origin;
  const response = await adminPage.request.post("/api/admin/invites", { data: { role: "member" }, headers: { origin } });
  if (!response.ok()) throw new Error(`invite failed: ${response.status()} ${await response.text()}`);
  const { invite } = (await response.json()) as { invite: { token: string } };
  const person = newPerson(label);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/sign-up?invite=${invite.token}`);
  await new SignUpPage(page).signUp(person);
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-"));
  return { context, page, person };
}
