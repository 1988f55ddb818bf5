import { describe, expect, it } from "vitest";
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { createTranslator } from "next-intl";
import en from "../messages/en.json";
import zhCN from "../messages/zh-CN.json";
import { LOCALES } from "./locales.ts";

type Tree = { [key: string]: string | Tree };
const catalogues: Record<(typeof LOCALES)[number], Tree> = { en, "zh-CN": zhCN };

/** Every message as "namespace.key" → its ICU text. */
function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [inner, text] of flatten(value, path)) out.set(inner, text);
  }
  return out;
}

const KIND: Partial<Record<TYPE, string>> = {
  [TYPE.argument]: "text",
  [TYPE.number]: "number",
  [TYPE.date]: "date",
  [TYPE.time]: "time",
  [TYPE.select]: "select",
  [TYPE.plural]: "plural",
  [TYPE.tag]: "tag",
};

/** The arguments a message takes, as "name:kind", with the cases of each select. */
function argumentsOf(elements: MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    found.add(`${element.value}:${KIND[element.type]}`);
    if (element.type === TYPE.select) found.add(`${element.value}:cases=${Object.keys(element.options).sort().join("|")}`);
    if (element.type === TYPE.select || element.type === TYPE.plural)
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
    if (element.type === TYPE.tag) argumentsOf(element.children, found);
  }
  return found;
}

const flat = Object.fromEntries(LOCALES.map((locale) => [locale, flatten(catalogues[locale])])) as Record<
  (typeof LOCALES)[number],
  Map<string, string>
>;

describe("the message catalogues", () => {
  it("have exactly the same keys in every language", () => {
    const english = [...flat.en.keys()].sort();
    expect(english.length).toBeGreaterThan(100);
    for (const locale of LOCALES) expect([...flat[locale].keys()].sort(), locale).toEqual(english);
  });

  it("take the same ICU arguments per key in every language", () => {
    for (const [key, text] of flat.en) {
      const expected = [...argumentsOf(parse(text))].sort();
      for (const locale of LOCALES) {
        const translated = flat[locale].get(key);
        if (translated === undefined) continue; // the key test above reports it
        expect([...argumentsOf(parse(translated))].sort(), `${locale} ${key}`).toEqual(expected);
      }
    }
  });

  it("give every plural an `other` case and leave no message empty", () => {
    const check = (elements: MessageFormatElement[], where: string) => {
      for (const element of elements) {
        if (element.type === TYPE.plural) expect(Object.keys(element.options), where).toContain("other");
        if (element.type === TYPE.plural || element.type === TYPE.select)
          for (const option of Object.values(element.options)) check(option.value, where);
      }
    };
    for (const locale of LOCALES)
      for (const [key, text] of flat[locale]) {
        expect(text.trim(), `${locale} ${key}`).not.toBe("");
        check(parse(text), `${locale} ${key}`);
      }
  });

  it("name each of a step's seven states with its own words", () => {
    for (const locale of LOCALES) {
      const t = createTranslator({ locale, messages: catalogues[locale] as typeof en, namespace: "plan.stepState" });
      const words = (["queued", "running", "waiting", "retrying", "done", "failed", "skipped"] as const).map((state) => t(state));
      expect(new Set(words).size, locale).toBe(7);
    }
  });

  it("name one or two typists and count more", () => {
    const t = createTranslator({ locale: "en", messages: en, namespace: "conversation" });
    expect(t("typing", { count: 1, first: "Alice", second: "" })).toBe("Alice is typing…");
    expect(t("typing", { count: 2, first: "Alice", second: "Bob" })).toBe("Alice and Bob are typing…");
    expect(t("typing", { count: 3, first: "Alice", second: "Bob" })).toBe("3 people are typing…");
    const zh = createTranslator({ locale: "zh-CN", messages: zhCN, namespace: "conversation" });
    expect(zh("typing", { count: 3, first: "甲", second: "乙" })).toBe("3 人正在输入…");
  });

  it("call the commander 指挥官 everywhere in Chinese, as the conversation and the admin pages do", () => {
    // one role, one name: a second word for it reads as a different agent
    const other = [...flat["zh-CN"]].filter(([, text]) => text.includes("指挥者")).map(([key]) => key);
    expect(other).toEqual([]);
  });

  it("quote with “…” in Chinese, as Simplified Chinese does, never corner brackets 「…」", () => {
    // one style: the plan timeline and the audit log quote the same titles side by side
    const corner = [...flat["zh-CN"]].filter(([, text]) => /[「」『』]/.test(text)).map(([key]) => key);
    expect(corner).toEqual([]);
    const zh = createTranslator({ locale: "zh-CN", messages: zhCN, namespace: "admin.audit" });
    expect(zh("quoted", { text: "发布" })).toBe("“发布”");
  });

  it("word a usage line in the reader's language", () => {
    const zh = createTranslator({ locale: "zh-CN", messages: zhCN, namespace: "conversation" });
    expect(zh("usageLine", { tokens: "2.6k", cost: "$0" })).toBe("2.6k token · $0");
    const t = createTranslator({ locale: "en", messages: en, namespace: "conversation" });
    expect(t("usageLine", { tokens: "2.6k", cost: "$0" })).toBe("2.6k tokens · $0");
  });

  it("read a retry's countdown, and 'now' at zero", () => {
    const t = createTranslator({ locale: "en", messages: en, namespace: "plan" });
    expect(t("retryLine", { attempt: 2, total: 4, seconds: 2 })).toBe("attempt 2 of 4, retrying in 2 s");
    expect(t("retryLine", { attempt: 4, total: 4, seconds: 0 })).toBe("attempt 4 of 4, retrying now");
  });
});
