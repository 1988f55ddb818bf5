"use client";
import { useState } from "react";
import type { CommanderReplyMode } from "@/server/protocol/forms.ts";
import { api } from "../api-client.ts";

const LABELS: Record<CommanderReplyMode, string> = {
  auto: "Commander: every message while one person is here",
  always: "Commander: every message",
  when_addressed: "Commander: only when @mentioned",
};

/** When the commander answers messages that address no agent; the server answers with what it stored. */
export function CommanderRepliesSelect({ conversationId, initial }: { conversationId: string; initial: CommanderReplyMode }) {
  const [mode, setMode] = useState<CommanderReplyMode>(initial);
  const [error, setError] = useState("");
  async function change(next: CommanderReplyMode) {
    setError("");
    try {
      const saved = await api.conversations.settings({ conversationId }, { commanderReplies: next });
      if (saved.commanderReplies) setMode(saved.commanderReplies);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not change the setting.");
    }
  }
  return (
    <label className="hidden items-center gap-1 text-xs text-zinc-600 md:flex dark:text-zinc-400">
      <span className="sr-only">When the commander answers</span>
      <select
        value={mode}
        onChange={(event) => void change(event.target.value as CommanderReplyMode)}
        className="rounded-md border border-zinc-300 bg-transparent px-1 py-0.5 dark:border-zinc-700"
        aria-describedby={error ? `${conversationId}-replies-error` : undefined}
      >
        {(Object.keys(LABELS) as CommanderReplyMode[]).map((value) => (
          <option key={value} value={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
      {error ? (
        <span id={`${conversationId}-replies-error`} role="alert" className="text-red-700 dark:text-red-400">
          {error}
        </span>
      ) : null}
    </label>
  );
}
