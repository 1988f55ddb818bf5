"use client";
import { useEffect, useRef, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { CloseIcon } from "./icons.tsx";

/** The first field of a dialog's body: what a person opening it means to type into. */
const FIRST_FIELD = "input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])";

/**
 * A native <dialog>: focus trap, Escape and backdrop come from the browser. On opening,
 * focus goes to the body's first field (Ctrl+K, then typing, searches), not the close
 * button; a body that fills in later (a list being loaded) gets it when its field
 * appears. On closing, focus goes back to whatever opened it.
 */
export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const t = useTranslations("common");
  const ref = useRef<HTMLDialogElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    let moved = false;
    const focusFirstField = () => {
      const field = body.current?.querySelector<HTMLElement>(FIRST_FIELD);
      if (!field || moved) return;
      // once someone has moved focus themselves, a late field does not take it away
      const untouched = document.activeElement === dialog || dialog.querySelector("[data-dialog-close]") === document.activeElement;
      if (!untouched) return;
      moved = true;
      field.focus();
    };
    focusFirstField();
    const observer = new MutationObserver(focusFirstField);
    if (body.current) observer.observe(body.current, { childList: true, subtree: true });
    return () => {
      observer.disconnect();
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onClose={onClose}
      onClick={(event) => event.target === ref.current && onClose()}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <h2 className="text-base font-semibold">{title}</h2>
        <button
          type="button"
          aria-label={t("close")}
          data-dialog-close
          onClick={onClose}
          className="rounded p-1 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800"
        >
          <CloseIcon size={16} />
        </button>
      </div>
      <div ref={body} className="p-4">
        {open ? children : null}
      </div>
    </dialog>
  );
}
