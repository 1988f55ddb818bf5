/** The conversation screen as a person uses it: sidebar, chat, composer, plan panel. */
import { expect, type Locator, type Page } from "@playwright/test";
import { screenshotPath } from "../support/screenshots.ts";

export class ConversationPage {
  readonly messages: Locator;
  readonly composer: Locator;
  readonly planSteps: Locator;
  readonly planStatus: Locator;

  constructor(readonly page: Page) {
    this.messages = page.getByTestId("message");
    this.composer = page.getByRole("combobox", { name: "Message" });
    this.planSteps = page.getByTestId("plan-step");
    this.planStatus = page.getByTestId("plan-status");
  }

  /** Creates a conversation with every agent through the sidebar dialog; returns its id. */
  async create(title: string): Promise<string> {
    await this.page.getByRole("button", { name: "+ New conversation" }).click();
    const dialog = this.page.getByRole("dialog", { name: "New conversation" });
    await dialog.getByLabel("Title").fill(title);
    await expect(dialog.getByText("commander", { exact: true })).toBeVisible();
    await dialog.getByRole("button", { name: "Create" }).click();
    await this.page.waitForURL(/\/c\/[^/]+$/);
    await expect(this.page.getByTestId("conversation-title")).toHaveText(title);
    await this.waitLive();
    return this.id();
  }

  id(): string {
    return new URL(this.page.url()).pathname.split("/").pop() ?? "";
  }

  async open(conversationId: string) {
    await this.page.goto(`/c/${conversationId}`);
    await this.waitLive();
  }

  async waitLive() {
    await expect(this.page.getByTestId("connection")).toHaveAttribute("data-state", "live");
  }

  /** Types lines into the composer (Shift+Enter between them) and sends with Enter. */
  async send(...lines: string[]) {
    await this.composer.click();
    for (const [i, line] of lines.entries()) {
      if (i > 0) await this.composer.press("Shift+Enter");
      await this.composer.pressSequentially(line, { delay: 0 });
    }
    await this.composer.press("Enter");
    await expect(this.composer).toHaveValue("");
  }

  /** Mentions an agent by picking it from the autocomplete. */
  async mention(handlePrefix: string, handle: string) {
    await this.composer.pressSequentially(`@${handlePrefix}`);
    await this.page.getByRole("option", { name: new RegExp(`@${handle}`) }).click();
  }

  /** Invites a person by email; they join once they accept (Sidebar.acceptInvitation). */
  async addMember(email: string) {
    await this.page.getByRole("button", { name: "Members" }).click();
    const dialog = this.page.getByRole("dialog", { name: "People and agents" });
    await dialog.getByLabel("Add a person by name or email").fill(email);
    await dialog.getByRole("button", { name: "Invite", exact: true }).click();
    await expect(dialog.getByText(/Invitation sent/)).toBeVisible();
    await dialog.getByRole("button", { name: "Close" }).click();
  }

  step(index: number): Locator {
    return this.page.locator(`[data-testid="plan-step"][data-index="${index}"]`);
  }

  async stepStatuses(): Promise<Record<string, string>> {
    return this.planSteps.evaluateAll((nodes) =>
      Object.fromEntries(nodes.map((n) => [n.getAttribute("data-index") ?? "", n.getAttribute("data-status") ?? ""])),
    );
  }

  async messageIds(): Promise<string[]> {
    return this.messages.evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-id") ?? ""));
  }

  async screenshot(name: string) {
    await this.page.screenshot({ path: screenshotPath(name) });
  }
}
