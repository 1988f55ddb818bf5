import { describe, expect, it } from "vitest";
import { clearRateLimit, hitRateLimit, peekRateLimit, SIGN_IN_ACCOUNT_RATE, SIGN_IN_ADDRESS_RATE } from "./rate-limit.ts";

const rule = { windowMs: 10_000, max: 3 };

describe("the limiter", () => {
  it("allows max hits per window, then says how long to wait, then resets when the window ends", () => {
    const key = `test:${Math.random()}`;
    const start = 1_000_000;
    expect([hitRateLimit(key, rule, start), hitRateLimit(key, rule, start + 1), hitRateLimit(key, rule, start + 2)]).toEqual([
      null,
      null,
      null,
    ]);
    expect(hitRateLimit(key, rule, start + 2_500)).toBe(8);
    // the window does not restart while refused hits keep coming (better-auth's did)
    expect(hitRateLimit(key, rule, start + 9_999)).toBe(1);
    expect(hitRateLimit(key, rule, start + 10_000)).toBeNull();
  });

  it("peeks without counting, and clears", () => {
    const key = `test:${Math.random()}`;
    const now = 5_000_000;
    expect(peekRateLimit(key, rule, now)).toBeNull();
    for (let i = 0; i < rule.max; i++) hitRateLimit(key, rule, now);
    expect(peekRateLimit(key, rule, now + 1)).toBe(10);
    expect(peekRateLimit(key, rule, now + 1)).toBe(10);
    clearRateLimit(key);
    expect(peekRateLimit(key, rule, now + 2)).toBeNull();
  });
});

describe("the limiter under a flood of keys", () => {
  it("keeps a locked account locked however many other keys a flood makes (it used to forget every limit at once)", () => {
    const now = 9_000_000;
    const account = `sign-in:account:victim-${Math.random()}@example.com`;
    for (let i = 0; i < SIGN_IN_ACCOUNT_RATE.max; i++) hitRateLimit(account, SIGN_IN_ACCOUNT_RATE, now);
    expect(peekRateLimit(account, SIGN_IN_ACCOUNT_RATE, now + 1)).not.toBeNull();
    // one failed sign-in each from 120,000 addresses (IPv6 hands them out by the billion)
    for (let i = 0; i < 120_000; i++) hitRateLimit(`sign-in:address:2001:db8:${i}::1`, SIGN_IN_ADDRESS_RATE, now + 2);
    expect(peekRateLimit(account, SIGN_IN_ACCOUNT_RATE, now + 3)).not.toBeNull();
  });
});
