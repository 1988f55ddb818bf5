/**
 * What an agent that takes part in the conversation sees of it (DESIGN rule 6): the
 * commander answering chat, and an agent a person mentions directly, get the recent
 * messages as chat turns before the message they answer. Plan steps do not: a step sees
 * its rendered input only, so sub-agents' context stays clean.
 *
 * - People's messages are user turns, prefixed with the author's name.
 * - The agent's own earlier messages are its assistant turns.
 * - Other agents' messages are user turns holding their text fenced as data: an agent's
 *   output is never instructions to another agent.
 * - What does not fit the history budget is summarised once, stored with the
 *   conversation, and extended (not recomputed) as the conversation grows: in batches,
 *   so that the turns before a run's new ones are those the previous run had (a prompt
 *   cache reads them) rather than a window that moves by one message every turn.
 */
import type { ModelMessage } from "ai";
import type { RunRequest } from "../ports/executor.ts";
import type { Summarizer } from "./compaction.ts";
import type { ConversationMemory, HistoryMessage, HistorySummary } from "../ports/agents.ts";
import { fenceUntrusted } from "../core/fence.ts";
import { truncateText } from "../core/text.ts";

/** At most this many recent messages are shown in full. */
export const HISTORY_MAX_MESSAGES = 40;
/** Share of the model's context budget the history may take. */
export const HISTORY_BUDGET_SHARE = 0.25;
/** …and never more than this many tokens, whatever the model. */
export const HISTORY_MAX_TOKENS = 8_000;
/** Messages summarised at once when the summary catches up. */
const SUMMARY_BATCH = 200;

export const HISTORY_INTRO =
  "The recent messages of this conversation follow, oldest first. The last message is the one you are answering.";
export const SUMMARY_HEADING = "Summary of the earlier conversation:";

/** True for the runs that take part in the conversation rather than work on a plan step. */
export function seesConversation(request: Pick<RunRequest, "purpose" | "step" | "resume">): boolean {
  if (request.resume || request.step) return false;
  return request.purpose.kind === "commander-chat" || request.purpose.kind === "mention";
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** One message as a chat turn from the point of view of `selfHandle`. */
export function historyTurn(message: HistoryMessage, selfHandle: string): ModelMessage {
  switch (message.author.kind) {
    case "user":
      return { role: "user", content: `${message.author.name}: ${message.body}` };
    case "agent":
      if (message.author.handle === selfHandle) return { role: "assistant", content: message.body };
      return {
        role: "user",
        content: `@${message.author.handle} (${message.author.name}, an agent) wrote:\n${fenceUntrusted(message.body, `agent:${message.author.handle}`)}`,
      };
    case "system":
      return { role: "user", content: `[Baton] ${message.body}` };
    default: {
      const exhaustive: never = message.author;
      return exhaustive;
    }
  }
}

/**
 * The newest of `messages` that fit `budget` tokens and `maxCount`, oldest first; a
 * single message too big for the budget is clipped, not dropped.
 */
function newestThatFit(messages: HistoryMessage[], budget: number, maxCount: number): HistoryMessage[] {
  const shown: HistoryMessage[] = [];
  let spent = 0;
  for (let i = messages.length - 1; i >= 0 && shown.length < maxCount; i--) {
    const message = messages[i];
    const cost = messageTokens(message);
    if (spent + cost > budget) {
      if (shown.length === 0 && budget > 64) shown.unshift({ ...message, body: `${truncateText(message.body, (budget - 16) * 4)}…` });
      break;
    }
    shown.unshift(message);
    spent += cost;
  }
  return shown;
}

const messageTokens = (message: HistoryMessage) => estimateTokens(message.body) + 8;

/**
 * The history turns to put before the run's own message: an intro (so the turns start
 * with a user turn, as every provider requires), the stored summary when older messages
 * exist, then the recent messages that fit `budgetTokens`.
 *
 * Cache-stable (issue 45): the turns before the new ones stay the same from one run to the
 * next, so a provider's prompt cache holds them. Once the history has outgrown the budget,
 * everything after the stored summary is shown for as long as it fits; when it no longer
 * does, the summary catches up in one step and leaves half the budget shown, so the window
 * moves by a batch of messages now and then instead of by one message on every turn.
 */
export async function buildHistoryTurns(input: {
  request: Pick<RunRequest, "conversationId" | "agent" | "triggerMessageId">;
  memory: ConversationMemory;
  budgetTokens: number;
  summarize: Summarizer;
  signal: AbortSignal;
}): Promise<ModelMessage[]> {
  const { request, memory } = input;
  // before anything is read: a summary made from what is read below is stored only if nothing it covers changed since
  const readAt = new Date().toISOString();
  const budget = Math.min(HISTORY_MAX_TOKENS, Math.max(0, Math.floor(input.budgetTokens)));
  const { messages, olderExist } = await memory.recent({
    conversationId: request.conversationId,
    beforeMessageId: request.triggerMessageId,
    limit: HISTORY_MAX_MESSAGES,
  });
  let shown = newestThatFit(messages, budget, messages.length);
  let summary: string | null = null;
  if (olderExist || shown.length < messages.length) {
    const stored = await memory.loadSummary(request.conversationId);
    const boundary = stored ? messages.findIndex((message) => message.id === stored.upToMessageId) : -1;
    const since = messages.slice(boundary + 1);
    if (stored && boundary >= 0 && since.reduce((sum, message) => sum + messageTokens(message), 0) <= budget) {
      shown = since;
      summary = stored.text;
    } else {
      shown = newestThatFit(messages, Math.floor(budget / 2), Math.floor(HISTORY_MAX_MESSAGES / 2));
      const dropped = messages.length - shown.length;
      const lastHidden = dropped > 0 ? messages[dropped - 1] : undefined;
      summary = await summaryUpTo({ ...input, stored, upTo: lastHidden, beforeShown: shown[0], readAt });
    }
  }
  const turns: ModelMessage[] = [];
  if (summary) turns.push({ role: "user", content: `${SUMMARY_HEADING}\n${fenceUntrusted(summary, "earlier-conversation")}` });
  if (shown.length === 0 && turns.length === 0) return [];
  turns.unshift({ role: "user", content: HISTORY_INTRO });
  for (const message of shown) turns.push(historyTurn(message, request.agent.handle));
  return turns;
}

/**
 * The stored summary, extended to cover everything before the first message shown in
 * full. Reused as is when it already does; otherwise only the messages it lacks are
 * summarised, and the result is stored for the next run.
 */
async function summaryUpTo(input: {
  request: Pick<RunRequest, "conversationId" | "agent">;
  memory: ConversationMemory;
  summarize: Summarizer;
  signal: AbortSignal;
  /** the summary stored so far */
  stored: HistorySummary | null;
  /** the newest message not shown in full, when the budget dropped some of the recent ones */
  upTo: HistoryMessage | undefined;
  beforeShown: HistoryMessage | undefined;
  readAt: string;
}): Promise<string | null> {
  const { memory, request, stored } = input;
  // the newest message that must be covered: the last one hidden by the budget, or the
  // one just before the first shown (found by asking for one message before it)
  const target =
    input.upTo ??
    (await memory.recent({ conversationId: request.conversationId, beforeMessageId: input.beforeShown?.id, limit: 1 })).messages[0];
  if (!target) return stored?.text ?? null;
  if (stored && stored.upToCreatedAt >= target.createdAt) return stored.text;
  const missing = await memory.range({
    conversationId: request.conversationId,
    afterCreatedAt: stored?.upToCreatedAt,
    upToMessageId: target.id,
    limit: SUMMARY_BATCH,
  });
  if (missing.length === 0) return stored?.text ?? null;
  const text = await input.summarize({
    previousSummary: stored?.text ?? null,
    messages: missing.map((message) => historyTurn(message, request.agent.handle)),
    signal: input.signal,
  });
  const newest = missing[missing.length - 1];
  await memory.saveSummary(request.conversationId, {
    text,
    upToMessageId: newest.id,
    upToCreatedAt: newest.createdAt,
    readAt: input.readAt,
  });
  return text;
}
