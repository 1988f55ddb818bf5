import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { Markdown } from "./markdown.tsx";

const render = (text: string, mentions: string[] = []) =>
  renderToStaticMarkup(
    createElement(NextIntlClientProvider, {
      locale: "en",
      messages: en,
      timeZone: "UTC",
      children: createElement(Markdown, { text, mentions }),
    }),
  );
/** what a reader sees: tags gone, entities decoded */
const visible = (html: string) =>
  html
    .replace(/<br\s*\/?>\n?/g, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");

describe("message markdown", () => {
  it("shows text in angle brackets literally, as text", () => {
    const html = render("Use a <div> wrapper");
    expect(visible(html)).toContain("Use a <div> wrapper");
    expect(html).not.toContain("<div>");
    expect(html).toContain("&lt;div&gt;");
  });

  it("keeps the line after a bare <img> and never renders an element from it", () => {
    const html = render("<img>\nthe line after\n\nand a paragraph");
    expect(visible(html)).toContain("<img>");
    expect(visible(html)).toContain("the line after");
    expect(visible(html)).toContain("and a paragraph");
    expect(html).not.toMatch(/<img[\s>]/);
  });

  it("never runs markup: scripts and handlers are text", () => {
    const html = render('<script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>');
    expect(html).not.toMatch(/<(script|img|a)[\s>]|onerror="/);
    expect(visible(html)).toContain("<script>alert(1)</script>");
  });

  it("turns every newline into a line break (Shift+Enter)", () => {
    const html = render("first line\nsecond line\nthird");
    expect(html.match(/<br\s*\/?>/g)?.length).toBe(2);
    expect(visible(html)).toContain("first line\nsecond line\nthird");
  });

  it("keeps code blocks verbatim, angle brackets included, with a copy button", () => {
    const html = render("```\nconst a = <T>(x: T) => x;\nline two\n```");
    expect(visible(html)).toContain("const a = <T>(x: T) => x;\nline two");
    expect(html).toContain('aria-label="Copy code"');
  });

  it("still renders markdown and the message's mentions", () => {
    const html = render("**bold** and @researcher", ["researcher"]);
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toMatch(/<span class="mention">@researcher<\/span>/);
  });
});
