/**
 * The one limiter: fixed windows counted in memory, per process (a runaway client or a
 * guessing script is stopped by the process it talks to; with several processes each
 * allows the figure, which bounds the total by processes × figure). Every write of a
 * person (per user) and of an API token (per token), sign-in attempts (per account and
 * per address) and Socket.IO handshakes (per address, per user: socket/limits.ts) go
 * through `hitRateLimit`;
 * `rateLimited` turns a wait into a 429 with Retry-After.
 */
import { HttpError } from "../http/errors.ts";

export interface RateRule {
  windowMs: number;
  max: number;
}

export const MESSAGE_RATE: RateRule = { windowMs: 60_000, max: 30 };
export const UPLOAD_RATE: RateRule = { windowMs: 60_000, max: 20 };
/** every state-changing request of one signed-in person, all routes together */
export const USER_WRITE_RATE: RateRule = { windowMs: 60_000, max: 120 };
/** every state-changing /api/v1 request of one token (the bootstrap token counts as one) */
export const TOKEN_WRITE_RATE: RateRule = { windowMs: 60_000, max: 120 };
/** every state-changing /api/v1 request of all one person's tokens together (a person may hold 50) */
export const PERSON_TOKENS_WRITE_RATE: RateRule = { windowMs: 60_000, max: 480 };
/** failed sign-ins of one account (GitLab locks after 10 failures for 10 minutes) */
export const SIGN_IN_ACCOUNT_RATE: RateRule = { windowMs: 10 * 60_000, max: 10 };
/** sign-in attempts from one client address, whatever the account */
export const SIGN_IN_ADDRESS_RATE: RateRule = { windowMs: 10 * 60_000, max: 50 };

const MAX_BUCKETS = 100_000;
/** a sweep past MAX_BUCKETS frees this many at least, so the next one is 10,000 new keys away */
const SWEPT_TO = 90_000;
/** a window: when it started, its hits, and its rule (so a sweep knows when it ends and whether it holds a lock) */
type Bucket = { start: number; count: number; windowMs: number; max: number };
const buckets = new Map<string, Bucket>();

function liveBucket(key: string, rule: RateRule, now: number) {
  const bucket = buckets.get(key);
  return bucket && now - bucket.start < rule.windowMs ? bucket : undefined;
}

function waitSeconds(bucket: { start: number }, rule: RateRule, now: number) {
  return Math.max(1, Math.ceil((bucket.start + rule.windowMs - now) / 1000));
}

/** Counts one hit; returns the seconds to wait when over the limit, else null. */
export function hitRateLimit(key: string, rule: RateRule, now = Date.now()): number | null {
  if (buckets.size > MAX_BUCKETS) sweep(now);
  const bucket = liveBucket(key, rule, now);
  if (!bucket) {
    buckets.set(key, { start: now, count: 1, windowMs: rule.windowMs, max: rule.max });
    return null;
  }
  if (bucket.count >= rule.max) return waitSeconds(bucket, rule, now);
  bucket.count += 1;
  return null;
}

/** The seconds to wait if the key is already at its limit, without counting a hit. */
export function peekRateLimit(key: string, rule: RateRule, now = Date.now()): number | null {
  const bucket = liveBucket(key, rule, now);
  return bucket && bucket.count >= rule.max ? waitSeconds(bucket, rule, now) : null;
}

export function clearRateLimit(key: string): void {
  buckets.delete(key);
}

export function rateLimited(wait: number): HttpError {
  return new HttpError(429, "rate_limited", `Too many requests; try again in ${wait}s.`, { "Retry-After": String(wait) });
}

/** Counts a hit and throws 429 with Retry-After when over the limit. */
export function enforceRateLimit(key: string, rule: RateRule): void {
  const wait = hitRateLimit(key, rule);
  if (wait !== null) throw rateLimited(wait);
}

/**
 * Drops ended windows; when a flood of keys (one per address, and IPv6 hands out
 * addresses by the billion) still leaves too many, drops the oldest windows that hold
 * no lock, and only then the oldest locks. Never everything at once: that let a flood
 * of fresh keys unlock an account under a password-guessing attack.
 */
function sweep(now: number) {
  for (const [key, bucket] of buckets) if (now - bucket.start >= bucket.windowMs) buckets.delete(key);
  for (const [key, bucket] of buckets) {
    if (buckets.size <= SWEPT_TO) return;
    if (bucket.count < bucket.max) buckets.delete(key);
  }
  for (const key of buckets.keys()) {
    if (buckets.size <= SWEPT_TO) return;
    buckets.delete(key);
  }
}
