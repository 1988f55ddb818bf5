"use client";
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";

/** Writes text to the clipboard; falls back to a hidden textarea where the Clipboard API is unavailable (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the textarea
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const done = document.execCommand("copy");
  area.remove();
  return done;
}

/** A small "Copy" button that says "Copied" for a moment. */
export function CopyButton({ text, label, className = "" }: { text: () => string; label: string; className?: string }) {
  const t = useTranslations("copy");
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={() => void copyText(text()).then((ok) => setState(ok ? "copied" : "failed"))}
      className={`rounded px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200 focus-visible:outline-2 focus-visible:outline-accent dark:text-zinc-300 dark:hover:bg-zinc-700 ${className}`}
    >
      <span aria-live="polite">{state === "copied" ? t("copied") : state === "failed" ? t("failed") : t("copy")}</span>
    </button>
  );
}
