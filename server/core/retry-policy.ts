/**
 * The one retry policy for a failed model call, from the run that made it to the
 * durable retry (a step's retryAt, a chat reply's next run). Pure: the agent runtime
 * classifies the provider's error, the executor carries the verdicts out.
 *
 * A run retries in place only to resume a cut stream or to honour a short Retry-After,
 * and only once per attempt chain (the chain's first run); everything else ends the run
 * as a transient failure and the durable retry takes over, waiting out a long
 * Retry-After instead of failing. So one step makes at most
 * 1 + maxRetries + IN_RUN_RETRIES provider calls (maxProviderCalls), not their product.
 */
import { canRetry, HARD_MAX_RETRIES, stepBackoffMs } from "./failure-policy.ts";

/** Retries a run makes in place, per attempt chain: the chain's first run has them, later runs none. */
export const IN_RUN_RETRIES = 1;
/** The longest Retry-After a run waits for in memory; a longer one becomes a durable wait. */
export const SHORT_RETRY_AFTER_MS = 30_000;
/** The longest Retry-After honoured at all: a provider asking for more is not having a blip. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** A cut stream is resumed after a short pause with jitter, [RESUME_DELAY_MS / 2, RESUME_DELAY_MS]. */
export const RESUME_DELAY_MS = 1_000;

/** How a model call failed, as the runtime classified it (agents/retry.ts). */
export interface ProviderFailure {
  kind: "transient" | "context-overflow" | "fatal";
  /** the provider's HTTP status: 2xx when it answered and the stream broke after; null when no answer came */
  httpStatus: number | null;
  /** the provider's Retry-After in ms; null when it sent none */
  retryAfterMs: number | null;
}

/** What the run does about a failed call. */
export type InRunVerdict =
  /** the stream was cut: call again after `delayMs` */
  | { kind: "resume"; delayMs: number }
  /** the provider asked for a short pause: wait it, then call again */
  | { kind: "honour-retry-after"; delayMs: number }
  /** the context was too long: compact it and call again */
  | { kind: "compact" }
  /** end the run as a transient failure; the durable retry decides what next */
  | { kind: "escalate"; retryAfterMs: number | null }
  /** end the run as a failure that no retry heals */
  | { kind: "fail" };

/** What the durable retry does after a transient failure. */
export type DurableVerdict =
  { kind: "retry"; delayMs: number; waitsForProvider: boolean } | { kind: "fail"; why: "no-retries-left" | "retry-after-too-long" };

/** The in-place retries a run of attempt number `attempt` (1-based) of its chain may make. */
export function inRunRetriesFor(attempt: number): number {
  return attempt <= 1 ? IN_RUN_RETRIES : 0;
}

/** A transient failure that no one refused: the connection broke, or the stream of a 2xx answer was cut. */
export function isCutStream(failure: ProviderFailure): boolean {
  return failure.kind === "transient" && (failure.httpStatus === null || (failure.httpStatus >= 200 && failure.httpStatus < 300));
}

/** A Retry-After a run waits in memory rather than handing to the durable retry. */
export function isShortRetryAfter(retryAfterMs: number | null): retryAfterMs is number {
  return retryAfterMs !== null && retryAfterMs <= SHORT_RETRY_AFTER_MS;
}

/**
 * Rules on one failed call of a run with `inRunRetriesLeft` in-place retries left.
 * `random` in [0, 1) jitters the resume delay.
 */
export function decideInRun(input: { failure: ProviderFailure; inRunRetriesLeft: number; random: () => number }): InRunVerdict {
  const { failure, inRunRetriesLeft } = input;
  switch (failure.kind) {
    case "fatal":
      return { kind: "fail" };
    case "context-overflow":
      return inRunRetriesLeft > 0 ? { kind: "compact" } : { kind: "fail" };
    case "transient": {
      if (inRunRetriesLeft > 0 && isShortRetryAfter(failure.retryAfterMs)) {
        return { kind: "honour-retry-after", delayMs: failure.retryAfterMs };
      }
      if (inRunRetriesLeft > 0 && failure.retryAfterMs === null && isCutStream(failure)) {
        const fraction = Math.min(Math.max(input.random(), 0), 1);
        return { kind: "resume", delayMs: Math.round(RESUME_DELAY_MS * (0.5 + 0.5 * fraction)) };
      }
      return { kind: "escalate", retryAfterMs: failure.retryAfterMs };
    }
    default:
      return failure.kind satisfies never;
  }
}

/**
 * Rules on a transient failure after `failuresBefore` earlier ones of the chain, with a
 * budget of `maxRetries` (never above HARD_MAX_RETRIES). The delay is the backoff, or
 * the provider's Retry-After when that is longer: a durable wait, not a failure.
 */
export function decideDurable(input: {
  failuresBefore: number;
  maxRetries: number;
  retryAfterMs: number | null;
  random: () => number;
}): DurableVerdict {
  if (!canRetry({ transientFailures: input.failuresBefore, maxRetries: input.maxRetries })) return { kind: "fail", why: "no-retries-left" };
  if (input.retryAfterMs !== null && input.retryAfterMs > MAX_RETRY_AFTER_MS) return { kind: "fail", why: "retry-after-too-long" };
  const backoff = stepBackoffMs(input.failuresBefore + 1, input.random);
  const retryAfter = input.retryAfterMs ?? 0;
  return { kind: "retry", delayMs: Math.max(backoff, Math.ceil(retryAfter)), waitsForProvider: retryAfter > backoff };
}

/** The most provider calls one attempt chain makes with a budget of `maxRetries`. */
export function maxProviderCalls(maxRetries: number): number {
  return 1 + Math.min(Math.max(0, maxRetries), HARD_MAX_RETRIES) + IN_RUN_RETRIES;
}

/** "95 s", "2 min 5 s": how long something waited, for a failure message. */
export function describeWait(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}
