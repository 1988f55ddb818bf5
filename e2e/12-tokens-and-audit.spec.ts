import { expect, test } from "@playwright/test";
import { adminContext, invitedContext } from "./support/accounts.ts";

test("12. a person creates a personal API token (shown once), uses it, revokes it; the admin's audit log shows both", async ({
  browser,
}) => {
  const admin = await adminContext(browser);
  const mia = await invitedContext(browser, admin.page, "Mia");
  const page = mia.page;
  await page.getByRole("link", { name: "API tokens" }).click();
  await page.waitForURL("**/settings/tokens");
  const name = `CI ${Date.now().toString(36)}`;
  await page.getByLabel("Name").fill(name);
  // members are not offered the admin scope
  await expect(page.getByRole("checkbox", { name: "admin" })).toHaveCount(0);
  await page.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("new-token").textContent())!.trim();
  expect(secret).toMatch(/^baton_pat_/);
  await expect(page.getByRole("button", { name: "Copy the token" })).toBeVisible();

  const list = (token: string) => page.request.get("/api/v1/conversations", { headers: { authorization: `Bearer ${token}` } });
  expect((await list(secret)).status()).toBe(200);
  // shown once: a reload shows the token's name and prefix, never the secret
  await page.reload();
  await expect(page.getByTestId("token").filter({ hasText: name })).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  // revoking asks once more
  await page.getByRole("button", { name: `Revoke ${name}` }).click();
  await page
    .getByRole("group", { name: `Revoke ${name} for good?` })
    .getByRole("button", { name: "Revoke for good" })
    .click();
  await expect(page.getByTestId("token").filter({ hasText: name })).toContainText("revoked");
  expect((await list(secret)).status()).toBe(401);

  await admin.page.goto("/admin/audit");
  const rows = admin.page.getByTestId("audit-event").filter({ hasText: mia.person.email });
  await expect(rows.filter({ hasText: "token.created" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "token.revoked" })).toHaveCount(1);
  await admin.context.close();
  await mia.context.close();
});
