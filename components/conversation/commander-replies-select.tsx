"use client";
/**
 * When the commander answers messages that address no agent (DESIGN rule 6), and the
 * line above the composer that says so where it will not: a request typed without
 * `@commander` must never vanish without a word.
 */
import { useCallback, useState } from "react";
import { useTranslations } from "next-intl";
import type { CommanderReplyMode } from "@/server/protocol/forms.ts";
import { api } from "../api-client.ts";
import { useErrorText } from "../error-text.ts";

/** `always` is the older name of `auto`: both answer every message that addresses nobody. */
const CHOICES = ["auto", "when_addressed"] as const satisfies readonly CommanderReplyMode[];

const shown = (mode: CommanderReplyMode): CommanderReplyMode => (mode === "always" ? "auto" : mode);

export interface CommanderReplies {
  mode: CommanderReplyMode;
  error: string;
  change: (next: CommanderReplyMode) => Promise<void>;
}

/** The setting as this tab knows it; the server answers a change with what it stored. */
export function useCommanderReplies(conversationId: string, initial: CommanderReplyMode): CommanderReplies {
  const t = useTranslations("commanderReplies");
  const errorText = useErrorText();
  const [mode, setMode] = useState<CommanderReplyMode>(initial);
  const [error, setError] = useState("");
  const change = useCallback(
    async (next: CommanderReplyMode) => {
      setError("");
      try {
        const saved = await api.conversations.settings({ conversationId }, { commanderReplies: next });
        if (saved.commanderReplies) setMode(saved.commanderReplies);
      } catch (caught) {
        setError(errorText(caught, t("failed")));
      }
    },
    [conversationId, t, errorText],
  );
  return { mode, error, change };
}

export function CommanderRepliesSelect({
  id,
  replies,
  className = "",
  visibleLabel = false,
}: {
  id: string;
  replies: CommanderReplies;
  className?: string;
  visibleLabel?: boolean;
}) {
  const t = useTranslations("commanderReplies");
  const errorId = `${id}-error`;
  return (
    <label className={`items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400 ${className}`}>
      <span className={visibleLabel ? "text-sm font-semibold text-zinc-900 dark:text-zinc-100" : "sr-only"}>{t("label")}</span>
      <select
        id={id}
        value={shown(replies.mode)}
        onChange={(event) => void replies.change(event.target.value as CommanderReplyMode)}
        className="h-8 max-w-full rounded-md border border-zinc-300 bg-transparent px-1 dark:border-zinc-700 dark:bg-zinc-900"
        aria-describedby={replies.error ? errorId : undefined}
      >
        {CHOICES.map((choice) => (
          <option key={choice} value={choice}>
            {t(`choice.${choice}`)}
          </option>
        ))}
      </select>
      {replies.error ? (
        <span id={errorId} role="alert" className="text-red-700 dark:text-red-400">
          {replies.error}
        </span>
      ) : null}
    </label>
  );
}

/**
 * Above the composer: where the commander will not answer an unaddressed message, how to
 * ask it; where it will and several people are here, how to talk to a person alone.
 */
export function CommanderHint({ mode, people }: { mode: CommanderReplyMode; people: number }) {
  const t = useTranslations("commanderReplies");
  if (mode === "when_addressed") {
    return (
      <p data-testid="commander-hint" data-mode={mode} className="px-3 pt-1 text-xs text-zinc-600 dark:text-zinc-400">
        {t.rich("hintWhenAddressed", { handle: (chunks) => <span className="font-medium">{chunks}</span> })}
      </p>
    );
  }
  if (people < 2) return null;
  return (
    <p data-testid="commander-hint" data-mode={mode} className="px-3 pt-1 text-xs text-zinc-500">
      {t("hintAlways")}
    </p>
  );
}
