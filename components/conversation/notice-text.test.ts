import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import zhCN from "@/messages/zh-CN.json";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { MessageText } from "./notice-text.tsx";

const message = (over: Partial<MessageDTO>): MessageDTO => ({
  id: "m",
  conversationId: "c",
  authorKind: "system",
  author: null,
  kind: "text",
  body: "the English body",
  notice: null,
  mentions: [],
  planId: null,
  stepId: null,
  runId: null,
  formId: null,
  attachments: [],
  createdAt: new Date(0).toISOString(),
  editedAt: null,
  deletedAt: null,
  reactions: [],
  ...over,
});

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
});
