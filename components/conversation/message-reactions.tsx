"use client";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { isReactionEmoji, REACTION_EMOJI, type ReactionDTO, type ReactionEmoji } from "@/server/protocol/reactions.ts";
import { api } from "../api-client.ts";

/** "Ada, Bo and 3 others": who reacted, for the chip's tooltip and accessible name. */
function who(reaction: ReactionDTO, currentUserId: string, t: ReturnType<typeof useTranslations<"reactions">>): string {
  const names = reaction.people.map((person) => (person.id === currentUserId ? t("you") : person.name));
  if (names.length <= 3) return names.join(t("separator"));
  return t("andOthers", { names: names.slice(0, 2).join(t("separator")), count: names.length - 2 });
}

/**
 * Sends the change. What is shown follows the conversation's reactions-changed events only
 * (this tab's too), applied in seq order: the HTTP answer could arrive after a later change
 * by someone else and would show an older state.
 */
async function setReaction(message: MessageDTO, emoji: ReactionEmoji, on: boolean) {
  await api.conversations.setReaction({ conversationId: message.conversationId, messageId: message.id }, { emoji, on });
}

/** The message's reactions: one chip per emoji with its count; pressing one's own takes it back. */
export function ReactionChips({ message, currentUserId }: { message: MessageDTO; currentUserId: string }) {
  const t = useTranslations("reactions");
  if (message.reactions.length === 0) return null;
  return (
    <ul className="mt-1 flex flex-wrap gap-1" aria-label={t("label")} data-testid="reactions">
      {message.reactions.map((reaction) => {
        const mine = reaction.people.some((person) => person.id === currentUserId);
        const people = who(reaction, currentUserId, t);
        return (
          <li key={reaction.emoji}>
            <button
              type="button"
              aria-pressed={mine}
              aria-label={`${reaction.emoji} ${reaction.people.length}: ${people}`}
              title={people}
              data-testid="reaction-chip"
              onClick={() => isReactionEmoji(reaction.emoji) && void setReaction(message, reaction.emoji, !mine).catch(() => {})}
              className={`flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs ${mine ? "border-accent bg-indigo-50 dark:bg-indigo-950" : "border-zinc-300 dark:border-zinc-700"}`}
            >
              <span aria-hidden>{reaction.emoji}</span>
              <span aria-hidden>{reaction.people.length}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** The top edge of what is visible around `element`: its nearest scrolling ancestor's, else the window's. */
function visibleTop(element: HTMLElement): number {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY;
    if (overflow === "auto" || overflow === "scroll" || overflow === "hidden") return Math.max(0, parent.getBoundingClientRect().top);
  }
  return 0;
}

/**
 * "Add reaction": a small picker of common emoji; Esc or a click elsewhere closes it. It
 * opens above the button, or below it when above would be cut off (the message right
 * under the conversation header, at the top of the scrolled list).
 */
export function AddReactionButton({
  message,
  currentUserId,
  className,
}: {
  message: MessageDTO;
  currentUserId: string;
  className: string;
}) {
  const t = useTranslations("reactions");
  const [open, setOpen] = useState(false);
  const [below, setBelow] = useState(false);
  const box = useRef<HTMLSpanElement>(null);
  const picker = useRef<HTMLSpanElement>(null);
  // measured before the browser paints, so a picker that would be cut off never shows there
  useLayoutEffect(() => {
    if (!open || below || !picker.current) return;
    if (picker.current.getBoundingClientRect().top < visibleTop(picker.current)) setBelow(true);
  }, [open, below]);
  const toggle = () => {
    setBelow(false);
    setOpen((value) => !value);
  };
  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => !box.current?.contains(event.target as Node) && setOpen(false);
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const mine = new Set(message.reactions.filter((r) => r.people.some((p) => p.id === currentUserId)).map((r) => r.emoji));
  return (
    <span ref={box} className="relative">
      <button type="button" className={className} aria-label={t("add")} aria-expanded={open} onClick={toggle}>
        ☺+
      </button>
      {open ? (
        <span
          ref={picker}
          role="group"
          aria-label={t("pick")}
          data-placement={below ? "below" : "above"}
          className={`absolute right-0 ${below ? "top-full mt-1" : "bottom-full mb-1"} z-20 flex gap-0.5 rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900`}
        >
          {REACTION_EMOJI.map((emoji) => (
            <button
              key={emoji}
              type="button"
              aria-label={t("reactWith", { emoji })}
              aria-pressed={mine.has(emoji)}
              className="rounded px-1 text-base hover:bg-zinc-100 dark:hover:bg-zinc-800"
              onClick={() => {
                setOpen(false);
                void setReaction(message, emoji, !mine.has(emoji)).catch(() => {});
              }}
            >
              {emoji}
            </button>
          ))}
        </span>
      ) : null}
    </span>
  );
}
