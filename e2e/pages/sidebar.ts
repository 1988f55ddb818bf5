/**
 * The conversation list in the sidebar. A conversation with activity the user has
 * not seen carries a badge, which screen readers hear as part of the link's name:
 * "Title, 3 new updates".
 */
import { expect, type Locator, type Page } from "@playwright/test";

const UNSEEN = String.raw`\s*,\s*(\d+|99\+) new updates?`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export class Sidebar {
  readonly nav: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole("navigation", { name: "Conversation list" });
  }

  /** The link to a conversation, by its exact title, with or without a badge. */
  link(title: string): Locator {
    return this.nav.getByRole("link", { name: new RegExp(`^${escapeRegExp(title)}(${UNSEEN})?$`) });
  }

  /** The accessible name of a link that carries a badge: "Title, N new updates". */
  static unseenName(title: string): RegExp {
    return new RegExp(`^${escapeRegExp(title)}${UNSEEN}$`);
  }

  /** How many unseen updates the link's name announces (0 without a badge). */
  async unseenCount(title: string): Promise<number> {
    const snapshot = await this.link(title).ariaSnapshot();
    const count = new RegExp(`${UNSEEN}"?`).exec(snapshot)?.[1];
    return count === undefined ? 0 : count === "99+" ? 100 : Number(count);
  }

  /** A pending invitation arrives live; accepting it opens the conversation. */
  async acceptInvitation(title: string) {
    await this.page.getByRole("button", { name: `Accept the invitation to ${title}` }).click();
    await this.page.waitForURL(/\/c\/[^/]+$/);
    await expect(this.link(title)).toHaveAttribute("aria-current", "page");
  }
}
