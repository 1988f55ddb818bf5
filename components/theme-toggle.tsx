"use client";
import { useSyncExternalStore } from "react";
import { useTranslations } from "next-intl";
import { MoonIcon, SunIcon } from "./ui/icons.tsx";

const themeListeners = new Set<() => void>();
function subscribeTheme(listener: () => void) {
  themeListeners.add(listener);
  return () => themeListeners.delete(listener);
}

/** Light/dark switch; the choice is kept in localStorage and applied before paint by app/layout.tsx. */
export function ThemeToggle() {
  const t = useTranslations("shell");
  // the theme lives on <html> (set before paint); the server renders no choice yet
  const dark = useSyncExternalStore(
    subscribeTheme,
    () => document.documentElement.classList.contains("dark"),
    () => null,
  );
  const toggle = () => {
    const next = !document.documentElement.classList.contains("dark");
    document.documentElement.classList.toggle("dark", next);
    localStorage.setItem("baton-theme", next ? "dark" : "light");
    themeListeners.forEach((listener) => listener());
  };
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label={dark ? t("lightTheme") : t("darkTheme")}
      title={t("toggleTheme")}
      className="rounded-md p-2 text-zinc-600 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800"
    >
      {dark ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
