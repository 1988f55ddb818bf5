import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import zhCN from "@/messages/zh-CN.json";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { messageDTO } from "@/server/testing/message-dto.ts";
import { MessageText } from "./notice-text.tsx";

const message = (over: Partial<MessageDTO>): MessageDTO =>
  messageDTO({ authorKind: "system", author: null, body: "the English body", createdAt: new Date(0).toISOString(), ...over });

const html = (locale: "en" | "zh-CN", shown: MessageDTO) =>
  renderToStaticMarkup(
    createElement(NextIntlClientProvider, {
      locale,
      messages: locale === "en" ? en : zhCN,
      timeZone: "UTC",
      children: createElement(MessageText, { message: shown }),
    }),
  );

describe("MessageText", () => {
  it("words a notice in the reader's language, its values as text and never as markup", () => {
    const title = `<img src=x onerror="alert(1)"> **not bold** [link](javascript:alert(1))`;
    const shown = html("zh-CN", message({ notice: { key: "planSubmitted", values: { title, steps: 2 } } }));
    expect(shown).toContain(
      "已提交计划 <strong>&lt;img src=x onerror=&quot;alert(1)&quot;&gt; **not bold** [link](javascript:alert(1))</strong>（2 个步骤）",
    );
    expect(shown).not.toContain("<img");
    expect(shown).not.toContain("<a ");
    expect(shown).not.toContain("the English body");
  });

  it("shows the body when a key is unknown to this browser, or there is no notice", () => {
    expect(html("zh-CN", message({ body: "**Plan** from a newer server", notice: { key: "planFromTheFuture", values: {} } }))).toContain(
      "<strong>Plan</strong> from a newer server",
    );
    // an event stored before notices existed has no notice field at all
    const old = message({});
    delete (old as Partial<MessageDTO>).notice;
    expect(html("en", old)).toContain("the English body");
  });

  it("keeps an agent's own words as markdown before the notice's lines", () => {
    const shown = html("zh-CN", message({ notice: { key: "decisionNotAppliedGone", values: {}, said: "Retry **now**" } }));
    expect(shown).toMatch(/Retry <strong>now<\/strong>.*<em>未执行：该步骤已不存在/s);
  });

  it("takes ICU syntax, braces and tags in any value as text: a line's, a list item's and a bullet's", () => {
    const hostile = `{x, select, other {<b>owned</b>}} } { <i>it</i> <img src=x onerror=alert(1)> [link](https://evil.test)`;
    for (const locale of ["en", "zh-CN"] as const) {
      const shown = html(
        locale,
        message({
          notice: {
            key: "planRerun",
            values: { name: hostile, title: hostile, steps: 1, status: hostile },
            more: [
              { key: "nothingToAddAfter", values: {}, list: { join: "and", items: [{ key: "deedUsed", values: { tool: hostile } }] } },
              {
                key: "planMissing",
                values: {},
                bullets: [
                  { key: "planMissingStep", values: { index: 1, title: hostile, assignee: hostile, status: hostile, reason: hostile } },
                ],
              },
            ],
          },
        }),
      );
      const escaped =
        "{x, select, other {&lt;b&gt;owned&lt;/b&gt;}} } { &lt;i&gt;it&lt;/i&gt; &lt;img src=x onerror=alert(1)&gt; [link](https://evil.test)";
      // name, title and status of the line, the list's tool, and the bullet's five values
      expect(shown.split(escaped).length - 1, locale).toBe(3 + 1 + 4);
      expect(shown).not.toMatch(/<img|<a |owned<\/b>|<i>it/);
      expect(shown).not.toContain("the English body");
    }
  });
});
