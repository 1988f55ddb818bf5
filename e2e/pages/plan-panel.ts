/**
 * The plan panel beside the chat, reached through its accessible names: the "Plan"
 * region, each step's "Step N: title, status. Open details" button, the plan's
 * controls and the step drawer (a dialog named "Step N details").
 */
import { expect, type Locator, type Page } from "@playwright/test";

/** A step's status as its button names it (STEP_STYLE labels). */
export type StepLabel = "pending" | "in progress" | "done" | "failed" | "skipped" | "blocked";

export class PlanPanel {
  readonly region: Locator;
  readonly status: Locator;
  readonly cancelButton: Locator;
  readonly rerunButton: Locator;
  readonly progress: Locator;

  constructor(readonly page: Page) {
    this.region = page.getByRole("complementary", { name: "Plan" });
    this.status = this.region.getByRole("status", { name: "Plan status" });
    this.cancelButton = this.region.getByRole("button", { name: "Stop plan" });
    this.rerunButton = this.region.getByRole("button", { name: "Re-run plan" });
    this.progress = this.region.getByRole("progressbar", { name: "Plan progress" });
  }

  /** Every step's button ("Step N: …"). */
  get stepButtons(): Locator {
    return this.region.getByRole("button", { name: /^Step \d+: / });
  }

  stepButton(index: number): Locator {
    return this.region.getByRole("button", { name: new RegExp(`^Step ${index}: `) });
  }

  /** Waits until step `index`'s button names the given status. */
  async expectStep(index: number, status: StepLabel, options?: { timeout?: number }) {
    await expect(this.stepButton(index)).toHaveAccessibleName(new RegExp(`^Step ${index}: .*, ${status}\\. Open details$`), options);
  }

  /** Every step as its button names it, in index order: { "1": "done", … }. */
  async stepLabels(): Promise<Record<string, string>> {
    const names = await this.stepButtons.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("aria-label") ?? ""));
    return Object.fromEntries(
      names.map((name) => {
        const match = /^Step (\d+): .*, ([a-z ]+)\. Open details$/.exec(name);
        return [match?.[1] ?? name, match?.[2] ?? "?"];
      }),
    );
  }

  /** Accepts the browser's "Stop the plan …?" confirmation and stops (cancels) the plan. */
  async cancel() {
    this.page.once("dialog", (dialog) => void dialog.accept());
    await this.cancelButton.click();
  }

  async openStep(index: number): Promise<StepDrawer> {
    await this.stepButton(index).click();
    const drawer = new StepDrawer(this.page, index);
    await expect(drawer.dialog).toBeVisible();
    return drawer;
  }
}

export class StepDrawer {
  readonly dialog: Locator;
  readonly retryButton: Locator;
  readonly skipButton: Locator;
  readonly stopButton: Locator;
  readonly runs: Locator;

  constructor(
    readonly page: Page,
    readonly index: number,
  ) {
    this.dialog = page.getByRole("dialog", { name: `Step ${index} details` });
    this.retryButton = this.dialog.getByRole("button", { name: "Retry step" });
    this.skipButton = this.dialog.getByRole("button", { name: "Skip step" });
    this.stopButton = this.dialog.getByRole("button", { name: "Stop step" });
    this.runs = this.dialog.getByRole("table", { name: "Runs" });
  }

  /** The Status cell of a run in the Runs table that reads exactly `status`. */
  runWithStatus(status: string): Locator {
    return this.runs.getByRole("cell", { name: status, exact: true });
  }

  async close() {
    await this.dialog.getByRole("button", { name: "Close step details" }).click();
    await expect(this.dialog).toBeHidden();
  }
}
