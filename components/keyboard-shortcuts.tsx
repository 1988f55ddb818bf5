"use client";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Dialog } from "./ui/dialog.tsx";

/** The app's keyboard shortcuts, as the help dialog lists them. */
export const SHORTCUTS: { keys: string[]; action: string }[] = [
  { keys: ["Alt", "↑"], action: "Previous conversation in the list" },
  { keys: ["Alt", "↓"], action: "Next conversation in the list" },
  { keys: ["/"], action: "Write a message (focus the composer)" },
  { keys: ["?"], action: "Show these shortcuts" },
  { keys: ["Esc"], action: "Close a dialog or the step details" },
];

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

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey) return;
      if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        const links = [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Conversation list"] a[href^="/c/"]')];
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
        const composer = document.querySelector<HTMLElement>('[aria-label="Message"]');
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
    <Dialog open={helpOpen} onClose={() => setHelpOpen(false)} title="Keyboard shortcuts">
      <table className="w-full text-sm" data-testid="keyboard-help">
        <thead className="sr-only">
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Action</th>
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
              <td className="py-1.5">{shortcut.action}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
