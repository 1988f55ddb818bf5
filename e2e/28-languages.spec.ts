/**
 * The interface in Simplified Chinese: a browser whose language is zh-CN gets it without
 * asking, at laptop and phone width; the profile's switch picks English for good (a
 * cookie, so it outlasts a reload) and "Follow browser" hands the choice back.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { adminContext, invitedContext } from "./support/accounts.ts";
import { screenshotPath } from "./support/screenshots.ts";

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** A new person, signed in, in a browser whose language is Simplified Chinese. */
async function chineseBrowser(browser: Browser) {
  const admin = await adminContext(browser);
  const person = await invitedContext(browser, admin.page, "Lin");
  const storageState = await person.context.storageState();
  await person.context.close();
  await admin.context.close();
  const context = await browser.newContext({ storageState, locale: "zh-CN", viewport: LAPTOP });
  return { context, page: await context.newPage() };
}

async function createConversation(page: Page, title: string) {
  await page.getByRole("navigation", { name: "会话列表" }).getByRole("button", { name: "新建会话" }).click();
  const dialog = page.getByRole("dialog", { name: "新建会话" });
  await dialog.getByLabel("标题").fill(title);
  await expect(dialog.getByText("指挥官", { exact: true })).toBeVisible();
  await dialog.getByRole("button", { name: "创建" }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-state", "live");
}

test("28a. a zh-CN browser gets the chat in Chinese at 1280×800 and 390×844", async ({ browser }) => {
  test.setTimeout(180_000);
  const { context, page } = await chineseBrowser(browser);
  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("heading", { name: "与你的智能体一起工作" })).toBeVisible();
  await expect(page.getByRole("button", { name: "退出登录" })).toBeVisible();

  await createConversation(page, "发布计划");
  await expect(page.getByTestId("conversation-title")).toHaveText("发布计划");
  await expect(page.getByTestId("connection")).toHaveAccessibleName("连接状态：已连接");
  await expect(page.getByText("还没有消息。向指挥官提出需求，或用 @ 提及一个智能体。")).toBeVisible();
  await expect(page.getByTestId("plan-panel-empty")).toContainText("还没有计划");
  const composer = page.getByRole("combobox", { name: "消息" });
  await expect(composer).toHaveAttribute("placeholder", "消息 — 输入 @ 提及某人");

  // the commander is asked only when addressed, so the check below is about our own message
  await page.getByRole("button", { name: "会话设置" }).click();
  const settings = page.getByRole("dialog", { name: "会话设置" });
  await settings.getByLabel("指挥官何时回复").selectOption("when_addressed");
  await expect(settings.getByLabel("指挥官何时回复")).toHaveValue("when_addressed");
  await settings.getByRole("button", { name: "关闭" }).click();
  await expect(page.getByTestId("commander-hint")).toHaveText("只有提及 @commander 时指挥官才会回复。");

  await composer.fill("大家好，明天上午十点开会。");
  await page.getByRole("button", { name: "发送消息" }).click();
  const mine = page.getByTestId("message").filter({ hasText: "大家好，明天上午十点开会。" });
  await expect(mine).toBeVisible();
  await expect(mine.getByText("你", { exact: true })).toBeVisible();
  await expect(mine.getByRole("button", { name: "编辑消息" })).toBeVisible();
  await page.screenshot({ path: screenshotPath("chinese-conversation-1280") });

  // phone: the sidebar is a drawer and the plan a sheet, both named in Chinese
  await page.setViewportSize(PHONE);
  await expect(page.getByRole("button", { name: "打开会话列表" })).toBeVisible();
  await page.getByRole("button", { name: "显示计划" }).click();
  const sheet = page.getByRole("complementary", { name: "计划" });
  await expect(sheet.getByTestId("plan-panel-empty")).toBeVisible();
  await sheet.getByRole("button", { name: "关闭计划" }).click();
  await expect(mine).toBeVisible();
  await page.screenshot({ path: screenshotPath("chinese-conversation-phone") });
  await page.getByRole("button", { name: "打开会话列表" }).click();
  await expect(page.getByRole("link", { name: "个人资料" })).toBeVisible();
  await context.close();
});

test("28b. the profile's switch picks English over the browser's Chinese, and it holds across a reload", async ({ browser }) => {
  const { context, page } = await chineseBrowser(browser);
  await page.goto("/profile");
  await expect(page.getByRole("heading", { name: "个人资料", level: 1 })).toBeVisible();
  const language = page.getByTestId("language-switch");
  await expect(language).toHaveValue("browser");

  await language.selectOption("en");
  await expect(page.getByRole("heading", { name: "Profile", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: "Change password" })).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");

  await page.reload();
  await expect(page.getByRole("heading", { name: "Profile", level: 1 })).toBeVisible();
  await expect(page.getByTestId("language-switch")).toHaveValue("en");
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Work with your agents" })).toBeVisible();

  // following the browser again: back to Chinese
  await page.goto("/profile");
  await page.getByTestId("language-switch").selectOption("browser");
  await expect(page.getByRole("heading", { name: "个人资料", level: 1 })).toBeVisible();
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await context.close();
});

test("28c. an admin page in Chinese: Admin → Agents for a zh-CN browser", async ({ browser }) => {
  const admin = await adminContext(browser);
  const storageState = await admin.context.storageState();
  await admin.context.close();
  const context = await browser.newContext({ storageState, locale: "zh-CN", viewport: LAPTOP });
  const page = await context.newPage();
  await page.goto("/admin/agents");
  await expect(page.getByRole("heading", { name: "管理", level: 1 })).toBeVisible();
  const tabs = page.getByRole("navigation", { name: "管理分区" });
  await expect(tabs.getByRole("link", { name: "智能体" })).toHaveAttribute("aria-current", "page");
  await expect(tabs.getByRole("link", { name: "审计日志" })).toBeVisible();
  await expect(page.getByText("选择要编辑的智能体，或新建一个。")).toBeVisible();
  await page.getByRole("button", { name: /@commander/ }).click();
  const form = page.getByRole("form", { name: "编辑 @commander" });
  await expect(form.getByLabel("并发上限")).toBeVisible();
  await expect(form.getByRole("button", { name: "保存修改" })).toBeVisible();
  await expect(page.getByTestId("agent-state")).toHaveText("指挥官负责回复每个对话、执行每个计划，因此不能停用或删除。");
  await expect(page).toHaveTitle(/智能体/);
  await page.screenshot({ path: screenshotPath("chinese-admin-agents") });

  // a refused save reads in Chinese, the server's own words as its detail (nothing is saved)
  await form.getByLabel("模型", { exact: true }).fill("nope:nothing");
  await form.getByRole("button", { name: "保存修改" }).click();
  await expect(form.getByRole("alert")).toHaveText(/^输入有误：model: /);
  await context.close();
});

test("28d. the audit log reads in Chinese for a zh-CN browser", async ({ browser }) => {
  const admin = await adminContext(browser);
  // signing up through an invite link is recorded: the admin's link, the person's use of it
  const person = await invitedContext(browser, admin.page, "Wu");
  await person.context.close();
  const storageState = await admin.context.storageState();
  await admin.context.close();
  const context = await browser.newContext({ storageState, locale: "zh-CN", viewport: LAPTOP });
  const page = await context.newPage();
  await page.goto("/admin/audit?kind=invite");
  const filter = page.getByRole("search", { name: "筛选审计日志" });
  await expect(filter.getByLabel("操作人")).toBeVisible();
  await expect(filter.getByLabel("类别")).toHaveValue("invite");
  const sentences = page.getByTestId("audit-sentence");
  await expect(sentences.filter({ hasText: `${person.person.name} 通过邀请链接注册为成员。` })).toHaveCount(1);
  await expect(sentences.filter({ hasText: "创建了一个成员邀请链接。" }).first()).toBeVisible();
  // no English sentence left: every one ends with a Chinese full stop
  for (const sentence of await sentences.allTextContents()) expect(sentence).toMatch(/。$/);
  await context.close();
});

test("28e. a refused sign-in reads in Chinese for a zh-CN browser", async ({ browser }) => {
  // an account exists, so /sign-in is the sign-in form and not the first sign-up
  const admin = await adminContext(browser);
  await admin.context.close();
  const context = await browser.newContext({ locale: "zh-CN", viewport: LAPTOP });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("邮箱").fill("nobody@example.test");
  await page.getByLabel("密码").fill("not the password");
  await page.getByRole("button", { name: "登录" }).click();
  await expect(page.getByText("邮箱或密码不正确")).toBeVisible();
  await context.close();
});

test("28f. the commander's closing message reads in Chinese at 1280×800, and points to the answer", async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await chineseBrowser(browser);
  await page.goto("/");
  await createConversation(page, "选数据库");
  const composer = page.getByRole("combobox", { name: "消息" });
  // the request is the person's own words; what the server writes around it is worded for them
  await composer.fill("Compare Postgres, MySQL and SQLite for a small team.");
  await page.getByRole("button", { name: "发送消息" }).click();

  const closing = page.getByTestId("message").filter({ has: page.getByTestId("plan-outcome") });
  await expect(closing.getByTestId("plan-outcome")).toHaveAttribute("data-outcome", "completed", { timeout: 60_000 });
  const notice = closing.getByTestId("notice");
  await expect(notice).toHaveAttribute("data-notice", "planEnded");
  await expect(notice).toContainText(/ 已完成，共 4 个步骤，完成 4 个。/);
  await expect(notice).toContainText(/答案在上方：步骤 4（.+）。/);
  await expect(notice).not.toContainText("completed");
  // the plan's title is the commander's: shown bold, as text
  await expect(notice.locator("strong").first()).not.toBeEmpty();
  await closing.getByRole("button", { name: /跳到答案/ }).click();
  await expect(
    page
      .getByTestId("message")
      .filter({ has: page.getByText("结果", { exact: true }) })
      .last(),
  ).toBeFocused();
  await closing.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("chinese-plan-closing-1280") });

  // the step drawer's runs read in Chinese too: a run's status is a word of the interface
  await page.getByRole("button", { name: /^步骤 1：/ }).click();
  const runs = page.getByRole("dialog", { name: "步骤 1 详情" }).getByRole("table", { name: "运行记录" });
  await expect(runs.getByRole("cell", { name: "成功", exact: true })).toBeVisible();
  await expect(runs.getByRole("cell", { name: "succeeded", exact: true })).toHaveCount(0);
  await context.close();
});
