import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { LOCALE_COOKIE, resolveLocale, type Locale } from "./locales.ts";
import type en from "../messages/en.json";

type Messages = typeof en;

// one import per language, so a bundler includes exactly these two files
const CATALOGUES: Record<Locale, () => Promise<{ default: Messages }>> = {
  en: () => import("../messages/en.json"),
  "zh-CN": () => import("../messages/zh-CN.json"),
};

// URLs carry no locale: each request picks one from the profile's saved choice (a
// cookie) or, without one, from the browser's Accept-Language.
export default getRequestConfig(async () => {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  const locale = resolveLocale({
    saved: cookieStore.get(LOCALE_COOKIE)?.value,
    acceptLanguage: headerList.get("accept-language"),
  });
  const messages = (await CATALOGUES[locale]()).default;
  return { locale, messages };
});
