"use client";
import { useRouter } from "next/navigation";
import { useId, useState, type ChangeEvent } from "react";
import { useTranslations } from "next-intl";
import { LOCALE_COOKIE, isLocale, type Locale } from "@/i18n/locales.ts";

type Choice = Locale | "browser";

/** A year: the choice is the person's until they change it. */
const COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

function saveChoice(choice: Choice) {
  document.cookie =
    choice === "browser"
      ? `${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`
      : `${LOCALE_COOKIE}=${choice}; Path=/; Max-Age=${COOKIE_MAX_AGE_SECONDS}; SameSite=Lax`;
}

/**
 * The interface's language: follow the browser (Accept-Language) or a fixed one. Kept in
 * a cookie that i18n/request.ts reads; router.refresh() renders the page again in it.
 */
export function LanguageSwitch({ saved }: { saved: string | undefined }) {
  const t = useTranslations("profile.language");
  const router = useRouter();
  const id = useId();
  const [choice, setChoice] = useState<Choice>(isLocale(saved) ? saved : "browser");

  function onChange(event: ChangeEvent<HTMLSelectElement>) {
    const next = event.target.value;
    const picked: Choice = isLocale(next) ? next : "browser";
    setChoice(picked);
    saveChoice(picked);
    router.refresh();
  }

  return (
    <section aria-labelledby={`${id}-heading`} className="flex flex-col gap-2">
      <h2 id={`${id}-heading`} className="text-sm font-semibold">
        {t("title")}
      </h2>
      <label htmlFor={id} className="sr-only">
        {t("title")}
      </label>
      <select
        id={id}
        value={choice}
        onChange={onChange}
        data-testid="language-switch"
        className="h-10 w-56 rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      >
        <option value="browser">{t("browser")}</option>
        {/* each language is named in itself, so it can be found from either */}
        <option value="en" lang="en">
          English
        </option>
        <option value="zh-CN" lang="zh-CN">
          简体中文
        </option>
      </select>
      <p className="text-xs text-zinc-500">{t("hint")}</p>
    </section>
  );
}
