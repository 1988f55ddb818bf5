/**
 * Which model errors heal by waiting, and what a failed call tells the core's retry
 * policy (core/retry-policy.ts): transient or not, the provider's HTTP status, its
 * Retry-After. The policy itself — what to retry where, and how long to wait — is the
 * core's; this file reads AI SDK errors for it.
 *
 * The run loop retries in place itself (instead of the AI SDK's maxRetries) because
 * it must also resume a stream cut mid-way, which the SDK does not retry, and because
 * tests need injectable delays.
 */
import { APICallError } from "ai";
import { isProviderName, PROVIDERS } from "../config/providers.ts";
import type { InRunVerdict, ProviderFailure } from "../core/retry-policy.ts";
import { truncateText } from "../core/text.ts";

/** How the run loop waits and jitters an in-place retry; injectable so tests run fast. */
export interface RetryTiming {
  /** must reject when the signal aborts */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** [0, 1), for jitter */
  random: () => number;
}

/** Why a run calls the model again in place, as its log and status line say it. */
export const IN_RUN_RETRY_REASONS = {
  resume: "resuming the cut stream",
  "honour-retry-after": "waiting as the provider asked",
  compact: "context too long, compacting",
} as const satisfies Record<Exclude<InRunVerdict["kind"], "escalate" | "fail">, string>;

export type ModelErrorKind = "transient" | "context-overflow" | "aborted" | "fatal";

const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

// Error types that providers send inside a 200 stream (Anthropic `event: error`,
// OpenAI `{"error": …}` chunks).
const TRANSIENT_STREAM_ERROR_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "server_error", "timeout_error"]);

const CONTEXT_OVERFLOW =
  /context[_ ]length|maximum context|context window|prompt is too long|too many tokens|input is too long|exceeds the context/i;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; current != null && depth < 6; depth++) {
    chain.push(current);
    const next = (current as { cause?: unknown; lastError?: unknown }).lastError ?? (current as { cause?: unknown }).cause;
    if (next === current) break;
    current = next;
  }
  return chain;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error != null) {
    const record = error as { message?: unknown; error?: { message?: unknown } };
    if (typeof record.message === "string") return record.message;
    if (typeof record.error?.message === "string") return record.error.message;
    return JSON.stringify(error);
  }
  return String(error);
}

export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (const link of causes(error)) {
    const message = messageOf(link);
    if (message && !parts.includes(message)) parts.push(message);
  }
  return parts.join(" ← ") || "unknown error";
}

export function classifyModelError(error: unknown): ModelErrorKind {
  for (const link of causes(error)) {
    if (link instanceof Error && (link.name === "AbortError" || link.name === "TimeoutError")) {
      // our own per-chunk timeout is a stall; a person's cancel is checked by the caller first
      return link.name === "TimeoutError" ? "transient" : "aborted";
    }
    if (APICallError.isInstance(link)) {
      const body = `${link.message} ${link.responseBody ?? ""}`;
      if ((link.statusCode === 400 || link.statusCode === 413) && CONTEXT_OVERFLOW.test(body)) return "context-overflow";
      if (link.isRetryable) return "transient";
      if (link.statusCode != null && (link.statusCode >= 500 || link.statusCode === 429 || link.statusCode === 408)) return "transient";
      return "fatal";
    }
    const code = (link as { code?: unknown })?.code;
    if (typeof code === "string" && TRANSIENT_CODES.has(code)) return "transient";
    const type = (link as { type?: unknown; error?: { type?: unknown } })?.type ?? (link as { error?: { type?: unknown } })?.error?.type;
    if (typeof type === "string") {
      if (TRANSIENT_STREAM_ERROR_TYPES.has(type)) return "transient";
      if (CONTEXT_OVERFLOW.test(messageOf(link))) return "context-overflow";
    }
    // undici: the body stream ended before the response did (connection cut mid-stream)
    if (link instanceof TypeError && /terminated|fetch failed|other side closed/i.test(link.message)) return "transient";
  }
  if (CONTEXT_OVERFLOW.test(describeError(error))) return "context-overflow";
  return "fatal";
}

/** Retry-After (or retry-after-ms) of a rate-limit or overload response, in ms. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | null {
  for (const link of causes(error)) {
    if (!APICallError.isInstance(link) || !link.responseHeaders) continue;
    const headers = link.responseHeaders;
    const ms = Number.parseFloat(headers["retry-after-ms"] ?? "");
    if (Number.isFinite(ms) && ms >= 0) return ms;
    const value = headers["retry-after"];
    if (value == null) continue;
    const seconds = Number.parseFloat(value);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(value);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return null;
}

/** The provider's HTTP status, when the failure was its answer (not a broken connection). */
export function httpStatusOf(error: unknown): number | null {
  const answer = causes(error).find((link) => APICallError.isInstance(link));
  return answer?.statusCode ?? null;
}

/** A failed call as the core's retry policy reads it (fatal and aborted calls never reach it). */
export function providerFailure(error: unknown, kind: Exclude<ModelErrorKind, "aborted">): ProviderFailure {
  return { kind, httpStatus: httpStatusOf(error), retryAfterMs: retryAfterMs(error) };
}

/**
 * A model failure as a person can act on it: which provider, what it answered, and
 * what to check — "anthropic (HTTP 401): invalid x-api-key — check ANTHROPIC_API_KEY".
 * Errors that are not a provider's answer are described as they are.
 */
export function explainModelError(error: unknown, modelId: string): string {
  const provider = modelId.includes(":") ? modelId.slice(0, modelId.indexOf(":")) : modelId;
  const answer = causes(error).find((link) => APICallError.isInstance(link));
  if (!answer || answer.statusCode == null) return describeError(error);
  const status = answer.statusCode;
  const hint =
    status === 401 || status === 403
      ? isProviderName(provider)
        ? `check ${PROVIDERS[provider].keyVariable}`
        : "check the provider's credentials"
      : status === 404
        ? `check the model id "${modelId}"`
        : status === 429
          ? "the provider is rate-limiting this key"
          : status >= 500
            ? "the provider is failing; it may recover"
            : null;
  const text = `${provider} (HTTP ${status}): ${providerMessage(answer)}`;
  return hint ? `${text} — ${hint}` : text;
}

/** The provider's own message, from its error body when it has one. */
function providerMessage(error: APICallError): string {
  try {
    const body = JSON.parse(error.responseBody ?? "") as { error?: { message?: unknown }; message?: unknown };
    const message = body.error?.message ?? body.message;
    if (typeof message === "string" && message.trim()) return truncateText(message.trim(), 300);
  } catch {
    // not JSON: fall back to the SDK's message
  }
  return truncateText(error.message, 300);
}
