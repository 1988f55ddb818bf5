"use client";
/**
 * Under a plan's closing message: a way to the answer it points to. The closing message
 * says where the result is instead of repeating it (server/executor/closing-message.ts);
 * this finds the last result the plan posted before it and scrolls there.
 */
import { useTranslations } from "next-intl";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { useConversationStore } from "../stores/conversation-store.ts";

/** The plan's last result message before `outcome`, if it is among the loaded messages. */
export function answerOf(messages: readonly MessageDTO[], outcome: Pick<MessageDTO, "id" | "planId">): MessageDTO | null {
  if (!outcome.planId) return null;
  const at = messages.findIndex((message) => message.id === outcome.id);
  for (let index = (at === -1 ? messages.length : at) - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.planId === outcome.planId && message.kind === "result" && message.deletedAt === null) return message;
  }
  return null;
}

export function OutcomeAnswerLink({ message }: { message: MessageDTO }) {
  const t = useTranslations("messages");
  const answer = useConversationStore((state) => answerOf(state.messages, message));
  if (!answer) return null;
  const go = () => {
    const target = document.querySelector<HTMLElement>(`[data-testid="message"][data-id="${CSS.escape(answer.id)}"]`);
    if (!target) return;
    target.scrollIntoView({ block: "start", behavior: "smooth" });
    target.tabIndex = -1;
    target.focus({ preventScroll: true });
  };
  return (
    <button
      type="button"
      onClick={go}
      data-testid="go-to-answer"
      className="mt-1 rounded text-sm font-medium text-accent underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-accent"
    >
      ↑ {t("goToAnswer")}
    </button>
  );
}
