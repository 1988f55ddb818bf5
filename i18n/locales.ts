/**
 * The interface's languages and how a request picks one. Pure: no Next, no cookies;
 * i18n/request.ts reads the request and hands the strings in.
 */
export const LOCALES = ["en", "zh-CN"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Set by the profile's language switch; absent means "follow the browser". */
export const LOCALE_COOKIE = "BATON_LOCALE";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

// Chinese written in Simplified characters: mainland China, Singapore, Malaysia, or the
// script named outright. zh-TW, zh-HK and zh-Hant are Traditional and are not served.
const SIMPLIFIED_CHINESE_REGIONS = new Set(["cn", "sg", "my"]);

function localeOfTag(tag: string): Locale | undefined {
  const [language, ...rest] = tag.toLowerCase().split("-");
  if (language === "en") return "en";
  if (language !== "zh") return undefined;
  if (rest.length === 0 || rest.includes("hans")) return "zh-CN";
  if (rest.includes("hant")) return undefined;
  return SIMPLIFIED_CHINESE_REGIONS.has(rest[0]) ? "zh-CN" : undefined;
}

/**
 * The first language of an Accept-Language header (by quality, then order) that Baton
 * speaks; English when none is.
 */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale {
  if (!header) return DEFAULT_LOCALE;
  const ranked = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...parameters] = part.trim().split(";");
      const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const q = quality ? Number(quality.slice(2)) : 1;
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

/** The saved choice when there is a valid one, else the browser's languages. */
export function resolveLocale(input: { saved: string | undefined; acceptLanguage: string | null | undefined }): Locale {
  return isLocale(input.saved) ? input.saved : localeFromAcceptLanguage(input.acceptLanguage);
}
