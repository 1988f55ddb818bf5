/**
 * Notices (server/core/notices.ts) against the catalogues: every key has words in every
 * language (the ICU arguments per key are held equal by messages.test.ts), the English
 * words say exactly what the stored English body says, so English readers see no change,
 * and the Chinese words leave no argument unfilled.
 */
import { describe, expect, it } from "vitest";
import { createTranslator } from "next-intl";
import en from "../messages/en.json";
import zhCN from "../messages/zh-CN.json";
import { NOTICE_KEYS, notices, type NoticeKey, type Worded } from "../server/core/notices.ts";
import { closingMessage } from "../server/executor/closing-message.ts";
import type { OutcomeReport } from "../server/core/outcome.ts";
import { layoutNotice } from "../components/conversation/notice-layout.ts";
import type { Locale } from "./locales.ts";

type Catalogue = typeof en;

/** The notice as text: the layout the browser uses, with the catalogue's <b>/<i> as markdown. */
function render(messages: Catalogue, locale: Locale, worded: Worded): string {
  const t = createTranslator({ locale, messages, namespace: "notices" });
  const key = (raw: string) => raw as NoticeKey;
  const tags = { b: (chunks: string) => `**${chunks}**`, i: (chunks: string) => `_${chunks}_` };
  const layout = layoutNotice(worded.notice, {
    line: (item, list) => t.markup(key(item.key), { ...item.values, ...(list === undefined ? {} : { list }), ...tags }),
    item: (item) => t(key(item.key), item.values),
    join: (how, first, next) => (how === "and" ? t("join.and", { first, last: next }) : t("join.comma", { first, next })),
  });
  const paragraphs = layout.paragraphs.map((paragraph) => [paragraph.text, ...paragraph.bullets.map((bullet) => `- ${bullet}`)].join("\n"));
  return [...(layout.said === null ? [] : [layout.said]), ...paragraphs].join("\n\n");
}

const report = (over: Partial<OutcomeReport>): OutcomeReport => ({
  status: "completed",
  total: 1,
  done: 1,
  delivered: [],
  missing: [],
  ...over,
});
const missing = (index: number, over: Partial<OutcomeReport["missing"][number]> = {}) => ({
  index,
  title: `Part ${index}`,
  assignee: "researcher",
  status: "failed" as const,
  reason: "the provider said: 503 Service Unavailable",
  ...over,
});

/** One case per shape each builder can take. */
const CASES: [string, Worded][] = [
  [
    "closing: completed",
    closingMessage({
      title: "Launch plan",
      report: report({ total: 3, done: 3, delivered: [{ index: 3, title: "Write it up", summary: null }] }),
    }),
  ],
  ["closing: one step", closingMessage({ title: "Tiny", report: report({ delivered: [{ index: 1, title: "Only", summary: null }] }) })],
  [
    "closing: partial, two results, three missing",
    closingMessage({
      title: "Research",
      report: report({
        status: "partial",
        total: 6,
        done: 3,
        delivered: [
          { index: 4, title: "Summary A", summary: null },
          { index: 6, title: "Summary B", summary: null },
        ],
        missing: [
          missing(1),
          missing(2, { assignee: "commander", status: "skipped", reason: null }),
          missing(5, { status: "in_progress", reason: "stopped" }),
        ],
      }),
    }),
  ],
  [
    "closing: partial, one result",
    closingMessage({
      title: "R",
      report: report({ status: "partial", total: 2, delivered: [{ index: 2, title: "B", summary: null }], missing: [missing(1)] }),
    }),
  ],
  [
    "closing: failed, more missing than listed",
    closingMessage({
      title: "Big",
      report: report({ status: "failed", total: 20, done: 0, missing: Array.from({ length: 15 }, (_, at) => missing(at + 1)) }),
    }),
  ],
  [
    "closing: cancelled",
    closingMessage({
      title: "Stopped",
      report: report({ status: "cancelled", total: 2, done: 0, missing: [missing(1, { status: "pending" })] }),
    }),
  ],
  ["closing: paused", closingMessage({ title: "Asks", report: report({ status: "paused", total: 2, done: 1 }) })],
  ["closing: running", closingMessage({ title: "Goes", report: report({ status: "running", total: 2, done: 1 }) })],
  ["recovered", notices.stepRecovered({ index: 2, title: "Fetch", attempts: 3 })],
  ["failed", notices.failed("rate limited (429)")],
  ["decision", notices.decisionDefault(2, "skip")],
  [
    "not applied, said",
    notices.decisionNotApplied({ said: "Retry it **now**", decision: "retry", step: { index: 2, status: "in_progress" } }),
  ],
  ["not applied, silent", notices.decisionNotApplied({ said: "", decision: "abort", step: { index: 4, status: "done" } })],
  ["not applied, gone", notices.decisionNotApplied({ said: "", decision: "append", step: undefined })],
  ["outsider", notices.retryNamedOutsider("ghost")],
  ["append rejected", notices.appendRejected("step 3: wait_for names step 9, which does not exist")],
  ["invalid plan", notices.planInvalid("the plan has a cycle: 1 → 2 → 1")],
  ["twin plan", notices.planAlreadyRunning("Release notes")],
  ["announced", notices.planAnnounced("Release notes")],
  ["submitted, one step", notices.planSubmitted("One", 1)],
  ["submitted", notices.planSubmitted("Three", 3)],
  ["re-run", notices.planRerun({ name: "Ada", title: "Research", steps: 4, endedAs: "partial" })],
  ["nothing", notices.nothingToAdd([])],
  ["nothing after one deed", notices.nothingToAdd(["plan_status"])],
  ["nothing after deeds", notices.nothingToAdd(["read_file", "write_file", "github__create_issue"])],
  ["nothing after two deeds", notices.nothingToAdd(["read_file", "plan_status"])],
  ["disabled", notices.agentsDisabled(["analyst"])],
  ["two disabled", notices.agentsDisabled(["analyst", "writer"])],
  ["withdrawn, one", notices.agentDisabledNotStarted("analyst", 1)],
  ["withdrawn", notices.agentDisabledNotStarted("analyst", 3)],
];

const keysOf = (worded: Worded) =>
  [worded.notice, ...(worded.notice.more ?? [])].flatMap((line) => [
    line.key,
    ...(line.list?.items ?? []).map((item) => item.key),
    ...(line.bullets ?? []).map((item) => item.key),
  ]);

describe("notices", () => {
  it("are a closed list, each with words in English and Chinese", () => {
    const { join: _en, ...english } = en.notices;
    const { join: _zh, ...chinese } = zhCN.notices;
    expect(Object.keys(english).sort()).toEqual([...NOTICE_KEYS].sort());
    expect(Object.keys(chinese).sort()).toEqual([...NOTICE_KEYS].sort());
  });

  it("read in English exactly as the body the server stores", () => {
    for (const [name, worded] of CASES) expect(render(en, "en", worded), name).toBe(worded.body);
  });

  it("are each reached by a case above (so the English check covers every key)", () => {
    const reached = new Set(CASES.flatMap(([, worded]) => keysOf(worded)));
    expect([...NOTICE_KEYS].filter((key) => !reached.has(key))).toEqual([]);
  });

  it("read in Chinese with every value in place and no English frame left", () => {
    for (const [name, worded] of CASES) {
      const text = render(zhCN, "zh-CN", worded);
      expect(text, name).not.toMatch(/[{}]/);
      expect(text, name).not.toBe(worded.body);
      expect(text, name).toMatch(/[\u4e00-\u9fff]/);
    }
    const closing = render(zhCN, "zh-CN", CASES[2][1]);
    expect(closing).toContain("**Research** 只完成了一部分（部分完成），共 6 个步骤，完成 3 个。");
    expect(closing).toContain("结果在上方：步骤 4（Summary A）、步骤 6（Summary B）。");
    expect(closing).toContain("- 步骤 2（Part 2，指挥官）已跳过：没有记录原因");
    // a provider's reason is an English sentence: it stays as it is inside the Chinese frame
    expect(closing).toContain("- 步骤 1（Part 1，@researcher）失败：the provider said: 503 Service Unavailable");
    expect(render(zhCN, "zh-CN", CASES[24][1])).toBe("我读取了会话中的文件、写了一个文件和使用了 github → create_issue，没有要补充的。");
  });
});
