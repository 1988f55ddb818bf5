"use client";
import { useTranslations } from "next-intl";
import type { MentionCandidate } from "./mention-candidates.ts";

export const MENTION_LISTBOX_ID = "mention-listbox";

/** The id of a candidate's option, for the composer's aria-activedescendant. */
export function mentionOptionId(candidate: MentionCandidate): string {
  return `mention-${candidate.kind}-${candidate.handle}`;
}

/**
 * The `@` autocomplete above the composer: the conversation's agents and people. The
 * keyboard stays in the textarea (↑/↓ move `highlight`, Enter or Tab pick, Esc closes);
 * a mouse press picks without taking the focus away.
 */
export function MentionPicker({
  candidates,
  highlight,
  onPick,
}: {
  candidates: MentionCandidate[];
  highlight: number;
  onPick: (candidate: MentionCandidate) => void;
}) {
  const t = useTranslations("mentions");
  return (
    <ul
      id={MENTION_LISTBOX_ID}
      role="listbox"
      aria-label={t("label")}
      className="absolute bottom-full left-10 z-20 mb-1 w-72 overflow-hidden rounded-md border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      {candidates.map((candidate, index) => (
        <li
          key={candidate.key}
          id={mentionOptionId(candidate)}
          role="option"
          aria-selected={index === highlight}
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(candidate);
          }}
          className={`flex cursor-pointer items-center gap-2 px-3 py-1.5 text-sm ${index === highlight ? "bg-indigo-50 dark:bg-indigo-950" : ""}`}
        >
          <span className="font-medium">@{candidate.handle}</span>
          <span className="min-w-0 flex-1 truncate text-zinc-500">{candidate.name}</span>
          <span className="text-xs text-zinc-500">{candidate.kind === "agent" ? t("agent") : t("person")}</span>
        </li>
      ))}
    </ul>
  );
}
