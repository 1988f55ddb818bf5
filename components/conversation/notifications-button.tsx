"use client";
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";

/** Offers browser notifications; permission is asked only on this click. */
export function NotificationsButton({ className = "" }: { className?: string }) {
  const t = useTranslations("conversation");
  const [permission, setPermission] = useState<NotificationPermission | "unsupported" | null>(null);
  useEffect(() => {
    // read after mount: the server render knows nothing of the browser's permission
    const current = typeof Notification === "undefined" ? "unsupported" : Notification.permission;
    const timer = setTimeout(() => setPermission(current), 0);
    return () => clearTimeout(timer);
  }, []);
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      className={`text-xs text-zinc-600 underline-offset-2 hover:underline dark:text-zinc-400 ${className}`}
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      {t("notifyMe")}
    </button>
  );
}
