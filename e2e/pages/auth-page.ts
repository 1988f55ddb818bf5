import type { Page } from "@playwright/test";

export class SignUpPage {
  constructor(readonly page: Page) {}

  async signUp(person: { name: string; email: string; password: string }) {
    await this.page.getByLabel("Name").fill(person.name);
    await this.page.getByLabel("Email").fill(person.email);
    await this.page.getByLabel("Password").fill(person.password);
    await this.page.getByRole("button", { name: "Create account" }).click();
  }
}
