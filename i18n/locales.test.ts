import { describe, expect, it } from "vitest";
import { localeFromAcceptLanguage, resolveLocale } from "./locales.ts";

describe("the interface's language", () => {
  it("serves Simplified Chinese to zh, zh-CN, zh-Hans and zh-SG", () => {
    for (const header of ["zh", "zh-CN", "zh-cn", "zh-Hans", "zh-Hans-CN", "zh-SG", "zh-CN,zh;q=0.9,en;q=0.8"])
      expect(localeFromAcceptLanguage(header), header).toBe("zh-CN");
  });

  it("serves English to everyone else, Traditional Chinese included", () => {
    for (const header of [null, "", "en-US", "fr-FR,de;q=0.8", "zh-TW", "zh-Hant", "zh-HK", "*"])
      expect(localeFromAcceptLanguage(header), String(header)).toBe("en");
  });

  it("takes the first language Baton speaks, by quality then order", () => {
    expect(localeFromAcceptLanguage("fr;q=0.9,zh-CN;q=0.8,en;q=0.7")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("en;q=0.5,zh-CN;q=0.8")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("zh-TW,en-GB;q=0.9,zh-CN;q=0.8")).toBe("en");
    expect(localeFromAcceptLanguage("zh-CN;q=0,en")).toBe("en");
  });

  it("prefers the saved choice, and ignores one it does not know", () => {
    expect(resolveLocale({ saved: "en", acceptLanguage: "zh-CN" })).toBe("en");
    expect(resolveLocale({ saved: "zh-CN", acceptLanguage: "en-US" })).toBe("zh-CN");
    expect(resolveLocale({ saved: "klingon", acceptLanguage: "zh-CN" })).toBe("zh-CN");
    expect(resolveLocale({ saved: undefined, acceptLanguage: undefined })).toBe("en");
  });
});
