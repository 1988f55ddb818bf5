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

  // the audit log reads as sentences, names not ids; the raw record is behind "details"
  await admin.page.goto("/admin/audit");
  const sentences = admin.page.getByTestId("audit-sentence");
  await expect(sentences.filter({ hasText: `${mia.person.name} created the API token “${name}”.` })).toHaveCount(1);
  await expect(sentences.filter({ hasText: `${mia.person.name} revoked the API token “${name}”.` })).toHaveCount(1);
  const created = admin.page.getByTestId("audit-event").filter({ hasText: `created the API token “${name}”` });
  await expect(created.locator("pre")).toBeHidden();
  await created.getByText("details").click();
  await expect(created.locator("pre")).toContainText('"action": "token.created"');
  await expect(created.locator("pre")).toContainText(mia.person.email);

  // filters, applied by the server: by who, and by kind
  await admin.page.getByLabel("Who").selectOption({ label: `${mia.person.name} (${mia.person.email})` });
  await admin.page.getByLabel("About").selectOption("token");
  await admin.page.getByRole("button", { name: "Filter" }).click();
  await admin.page.waitForURL(/kind=token/);
  await expect(admin.page.getByTestId("audit-event")).toHaveCount(2);
  await admin.page.getByLabel("About").selectOption("agent");
  await admin.page.getByRole("button", { name: "Filter" }).click();
  await admin.page.waitForURL(/kind=agent/);
  await expect(admin.page.getByText("Nothing recorded that matches.")).toBeVisible();
  await admin.context.close();
  await mia.context.close();
});
