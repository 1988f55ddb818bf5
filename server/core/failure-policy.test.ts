import { describe, expect, it } from "vitest";
import { BASE_BACKOFF_MS, canRetry, HARD_MAX_RETRIES, MAX_BACKOFF_MS, stepBackoffMs } from "./failure-policy.ts";

describe("stepBackoffMs", () => {
  it("doubles from the base with jitter between 50% and 100%", () => {
    expect(stepBackoffMs(1, () => 0)).toBe(BASE_BACKOFF_MS / 2);
    expect(stepBackoffMs(1, () => 0.999999)).toBe(BASE_BACKOFF_MS);
    expect(stepBackoffMs(2, () => 0)).toBe(BASE_BACKOFF_MS);
    expect(stepBackoffMs(3, () => 0.5)).toBe(Math.round(BASE_BACKOFF_MS * 4 * 0.75));
  });

  it("caps at MAX_BACKOFF_MS, even for huge counts", () => {
    expect(stepBackoffMs(20, () => 0.999999)).toBe(MAX_BACKOFF_MS);
    expect(stepBackoffMs(5000, () => 0)).toBe(MAX_BACKOFF_MS / 2);
  });

  it("treats counts below 1 as the first retry", () => {
    expect(stepBackoffMs(0, () => 0)).toBe(BASE_BACKOFF_MS / 2);
  });

  it("stays within bounds for any random value", () => {
    for (let n = 1; n <= 12; n += 1) {
      for (const random of [0, 0.1, 0.5, 0.9, 0.9999]) {
        const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (n - 1));
        const delay = stepBackoffMs(n, () => random);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });
});

describe("canRetry", () => {
  it("allows retries until the step's budget is used", () => {
    expect(canRetry({ transientFailures: 0, maxRetries: 2 })).toBe(true);
    expect(canRetry({ transientFailures: 1, maxRetries: 2 })).toBe(true);
    expect(canRetry({ transientFailures: 2, maxRetries: 2 })).toBe(false);
    expect(canRetry({ transientFailures: 0, maxRetries: 0 })).toBe(false);
  });

  it("never exceeds the hard cap", () => {
    expect(canRetry({ transientFailures: HARD_MAX_RETRIES, maxRetries: 50 })).toBe(false);
    expect(canRetry({ transientFailures: HARD_MAX_RETRIES - 1, maxRetries: 50 })).toBe(true);
  });
});
