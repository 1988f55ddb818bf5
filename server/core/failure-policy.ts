/**
 * When a failed step runs again, and how long it waits first. Pure: the caller
 * supplies the randomness so tests can pin the jitter.
 */
import type { StepState } from "./types.ts";

/** No step retries more than this, whatever it asks for, so a broken step cannot spin. */
export const HARD_MAX_RETRIES = 10;
export const BASE_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 30_000;

/**
 * Delay before retry number `failureCount` (1 for the first retry): exponential
 * backoff capped at MAX_BACKOFF_MS, with jitter between 50% and 100% of that cap so
 * steps that failed together (a provider outage) do not all come back at once.
 */
export function stepBackoffMs(failureCount: number, random: () => number): number {
  const exponent = Math.max(0, Math.floor(failureCount) - 1);
  // 2^exponent overflows to Infinity for silly inputs; Math.min still caps it
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** exponent);
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling * (0.5 + 0.5 * fraction));
}

/**
 * The step goes out again with nobody having decided so: after a transient failure
 * (a decided retry, the commander's or a member's, restarts `transientFailures` at 0:
 * resetForRetry), or as the attempt its escalation set aside. Its hand-off was posted
 * with an earlier attempt; an automatic retry is not posted again.
 */
export function isAutomaticRetry(step: Pick<StepState, "attempts" | "transientFailures" | "escalatedAttempt">): boolean {
  return step.attempts > 0 && (step.transientFailures > 0 || step.escalatedAttempt === step.attempts + 1);
}

/** The step still has transient-retry budget (its own limit, never above the hard cap). */
export function canRetry(step: Pick<StepState, "transientFailures" | "maxRetries">): boolean {
  return step.transientFailures < Math.min(step.maxRetries, HARD_MAX_RETRIES);
}
