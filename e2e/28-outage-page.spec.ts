import { expect, test } from "@playwright/test";
import { adminContext } from "./support/accounts.ts";

// the forced-outage test hook (server/http/forced-outage-test-hook.ts), on in the e2e server only
const FORCED_OUTAGE_COOKIE = "baton-test-hook-forced-outage";

test("28. a page loaded while the database is unreachable says so, and Retry brings it back", async ({ browser, baseURL }) => {
  const { context, page } = await adminContext(browser);
  await expect(page.getByTestId("current-user")).toBeVisible();

  await context.addCookies([{ name: FORCED_OUTAGE_COOKIE, value: "1", url: baseURL! }]);
  await page.reload();
  const errorPage = page.getByTestId("error-page");
  await expect(errorPage).toHaveAttribute("data-cause", "unreachable");
  await expect(page.getByRole("heading", { name: "Baton cannot reach its database right now" })).toBeVisible();
  await expect(errorPage).toContainText("Nothing is lost");
  await expect(page.getByText("This page couldn't load")).toHaveCount(0);

  // the other language: the same page, in Chinese
  await context.addCookies([{ name: "BATON_LOCALE", value: "zh-CN", url: baseURL! }]);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Baton 暂时无法连接到它的数据库" })).toBeVisible();
  await context.clearCookies({ name: "BATON_LOCALE" });
  await page.reload();
  await expect(page.getByRole("heading", { name: "Baton cannot reach its database right now" })).toBeVisible();

  // the database is back: Retry renders the page again, without a reload
  await context.clearCookies({ name: FORCED_OUTAGE_COOKIE });
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("current-user")).toBeVisible();
  await expect(errorPage).toHaveCount(0);
  await context.close();
});
