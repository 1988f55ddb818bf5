/**
 * A small fixed-window limiter for app routes (message sending, uploads). In memory,
 * per process: enough to stop a runaway client; sign-in is limited by better-auth.
 */
export interface RateRule {
  windowMs: number;
  max: number;
}

export const MESSAGE_RATE: RateRule = { windowMs: 60_000, max: 30 };
export const UPLOAD_RATE: RateRule = { windowMs: 60_000, max: 20 };

const buckets = new Map<string, { start: number; count: number }>();

/** Counts one hit; returns the seconds to wait when over the limit, else null. */
export function hitRateLimit(key: string, rule: RateRule, now = Date.now()): number | null {
  if (buckets.size > 50_000) buckets.clear();
  const bucket = buckets.get(key);
  if (!bucket || now - bucket.start >= rule.windowMs) {
    buckets.set(key, { start: now, count: 1 });
    return null;
  }
  if (bucket.count >= rule.max) return Math.ceil((bucket.start + rule.windowMs - now) / 1000);
  bucket.count += 1;
  return null;
}
