/**
 * Session helpers: finding the form a blocked session is waiting on, and
 * continuing it with a person's answer as that tool call's result — so the
 * resumed run is the same conversation with the model, not a new one.
 */
import type { ModelMessage } from "ai";
import type { FormSpec } from "../core/types.ts";

export interface PendingAskUser {
  toolCallId: string;
  form: FormSpec;
}

/** The ask_user call of the last assistant message that has no result yet. */
export function findPendingAskUser(messages: ModelMessage[]): PendingAskUser | null {
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-result") answered.add(part.toolCallId);
      continue;
    }
    if (message.role !== "assistant") return null;
    if (typeof message.content === "string") return null;
    for (const part of message.content) {
      if (part.type === "tool-call" && part.toolName === "ask_user" && !answered.has(part.toolCallId)) {
        return { toolCallId: part.toolCallId, form: part.input as FormSpec };
      }
    }
    return null;
  }
  return null;
}

export class SessionResumeError extends Error {
  readonly code = "session-not-resumable";
  constructor(message: string) {
    super(message);
    this.name = "SessionResumeError";
  }
}

/** The stored session with the answer appended as the result of its pending ask_user. */
export function resumeSession(messages: ModelMessage[] | null, answer: string, previousRunId: string): ModelMessage[] {
  if (messages == null || messages.length === 0) throw new SessionResumeError(`No stored session for run ${previousRunId}`);
  const pending = findPendingAskUser(messages);
  if (pending == null) throw new SessionResumeError(`Session of run ${previousRunId} is not waiting for a form answer`);
  return [
    ...messages,
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: pending.toolCallId, toolName: "ask_user", output: { type: "text", value: answer } }],
    },
  ];
}
