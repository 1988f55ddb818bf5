"use client";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Dialog } from "./ui/dialog.tsx";

/** The app's keyboard shortcuts, as the help dialog lists them (action: a key of messages' "shortcuts"). */
const SHORTCUTS = [
  { keys: ["Alt", "↑"], action: "previousConversation" },
  { keys: ["Alt", "↓"], action: "nextConversation" },
  { keys: ["/"], action: "focusComposer" },
  { keys: ["?"], action: "showShortcuts" },
  { keys: ["Esc"], action: "closeDialog" },
] as const;

/** Whether a key press is meant for a text field rather than for the app. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(target.type);
}

/**
 * Global shortcuts: Alt+↑/↓ moves through the conversation list, "/" focuses the
 * composer, "?" opens the list of shortcuts. Keys typed into a field are left alone
 * (except Alt+↑/↓, which no text field uses).
 */
export function KeyboardShortcuts() {
  const router = useRouter();
  const pathname = usePathname();
  const [helpOpen, setHelpOpen] = useState(false);
  const t = useTranslations("shortcuts");

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey) return;
      if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        const links = [...document.querySelectorAll<HTMLAnchorElement>('nav[data-conversation-list] a[href^="/c/"]')];
        if (links.length === 0) return;
        const here = links.findIndex((link) => new URL(link.href).pathname === pathname);
        const next =
          here === -1
            ? event.key === "ArrowDown"
              ? 0
              : links.length - 1
            : (here + (event.key === "ArrowDown" ? 1 : -1) + links.length) % links.length;
        event.preventDefault();
        router.push(new URL(links[next].href).pathname);
        return;
      }
      if (event.altKey || typing(event.target) || document.querySelector("dialog[open]")) return;
      if (event.key === "/") {
        const composer = document.querySelector<HTMLElement>("[data-composer]");
        if (!composer) return;
        event.preventDefault();
        composer.focus();
      } else if (event.key === "?") {
        event.preventDefault();
        setHelpOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [pathname, router]);

  return (
    <Dialog open={helpOpen} onClose={() => setHelpOpen(false)} title={t("title")}>
      <table className="w-full text-sm" data-testid="keyboard-help">
        <thead className="sr-only">
          <tr>
            <th scope="col">{t("keys")}</th>
            <th scope="col">{t("action")}</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.action} className="border-b border-zinc-100 last:border-0 dark:border-zinc-800">
              <td className="py-1.5 pr-4 whitespace-nowrap">
                {shortcut.keys.map((key, i) => (
                  <span key={key}>
                    {i > 0 ? " + " : null}
                    <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1.5 py-0.5 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-800">
                      {key}
                    </kbd>
                  </span>
                ))}
              </td>
              <td className="py-1.5">{t(shortcut.action)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
