/**
 * What a run costs and what it shows while a model call is retried: the estimate for a
 * call cut mid-stream, Anthropic prompt-cache breakpoints, OpenAI's cache routing key, and
 * the live text reset.
 */
import { createHash } from "node:crypto";
import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { ModelMessage, SystemModelMessage } from "ai";
import type { RunContext } from "./run-context.ts";

/** Rough size of a token in characters, for usage nobody reported. */
export const CHARS_PER_TOKEN = 4;

const ANTHROPIC_CACHE = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/**
 * The system prompt, as a cache breakpoint for Anthropic (the same prompt starts every
 * run of the agent, and every call of a run); a plain string for other providers, which
 * cache on their own or not at all.
 */
export function cachedSystem(provider: string, system: string): string | SystemModelMessage {
  return provider === "anthropic" ? { role: "system", content: system, providerOptions: ANTHROPIC_CACHE } : system;
}

/**
 * The conversation before the new message, with a cache breakpoint on its last turn
 * (Anthropic): the next run in the conversation reads that prefix from the cache.
 */
export function markCacheBreakpoint(provider: string, history: ModelMessage[]): ModelMessage[] {
  const last = history.at(-1);
  if (provider !== "anthropic" || !last) return history;
  return [...history.slice(0, -1), { ...last, providerOptions: { ...last.providerOptions, ...ANTHROPIC_CACHE } }];
}

/**
 * The run's first user message. For Anthropic the shared context before the task is its
 * own text part with a cache breakpoint: a plan's steps repeat it, so from the second step
 * on it is read from the cache. Other providers get one string (OpenAI caches a repeated
 * prefix by itself).
 */
export function cachedUserMessage(provider: string, parts: { context: string; task: string }): ModelMessage {
  if (provider !== "anthropic" || parts.context === "") return { role: "user", content: parts.context + parts.task };
  return {
    role: "user",
    content: [
      { type: "text", text: parts.context, providerOptions: ANTHROPIC_CACHE },
      { type: "text", text: parts.task },
    ],
  };
}

/**
 * OpenAI caches a repeated prefix by itself, but only on the machine that served it: its
 * `prompt_cache_key` sends requests with the same key and prefix to the same one. One key
 * per agent and conversation, the runs whose prompts share the most (an agent's steps of
 * a plan, the commander's turns), hashed so that it is short and says nothing.
 */
export function cacheRouting(provider: string, request: { agentId: string; conversationId: string }): SharedV3ProviderOptions | undefined {
  if (provider !== "openai") return undefined;
  const key = createHash("sha256").update(`${request.agentId}\u0000${request.conversationId}`).digest("hex").slice(0, 32);
  return { openai: { promptCacheKey: `baton-${key}` } };
}

/** Adds the estimated usage of a model call cut mid-stream and marks the run's usage as estimated. */
export function estimateCutUsage(ctx: RunContext, system: string, streamedChars: number): void {
  const promptChars = system.length + JSON.stringify(ctx.messages).length;
  const tokensIn = Math.ceil(promptChars / CHARS_PER_TOKEN);
  const tokensOut = Math.ceil(streamedChars / CHARS_PER_TOKEN);
  ctx.tokensIn += tokensIn;
  ctx.tokensOut += tokensOut;
  ctx.usageEstimated = true;
  ctx.sink.log({
    phase: "usage-estimated",
    message: `a model call was cut mid-stream: its usage is estimated (~${tokensIn} in, ~${tokensOut} out)`,
    data: { tokensIn, tokensOut, estimated: true },
  });
}

/**
 * A failed model call is retried: what it streamed is not part of the result, so live
 * views go back to the text of the completed steps.
 */
export function restartLiveText(ctx: RunContext): void {
  const kept = ctx.steps
    .map((step) => step.text.trim())
    .filter((text) => text !== "")
    .join("\n\n");
  ctx.sink.resetText?.(kept);
}
