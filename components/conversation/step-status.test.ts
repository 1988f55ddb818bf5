import { describe, expect, it } from "vitest";
import { retryStatusLine, stepTally } from "./step-status.ts";

describe("a step's retry status line", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const at = (ms: number) => new Date(now + ms).toISOString();

  it("reads 'attempt N of M, retrying in S s' while a retry waits", () => {
    expect(retryStatusLine({ status: "pending", retryAt: at(1_200), transientFailures: 1, maxRetries: 3 }, now)).toBe(
      "attempt 2 of 4, retrying in 2 s",
    );
    expect(retryStatusLine({ status: "pending", retryAt: at(-5), transientFailures: 3, maxRetries: 3 }, now)).toBe(
      "attempt 4 of 4, retrying now",
    );
    // the hard cap applies, whatever a plan asked for
    expect(retryStatusLine({ status: "pending", retryAt: at(1_000), transientFailures: 1, maxRetries: 50 }, now)).toBe(
      "attempt 2 of 11, retrying in 1 s",
    );
  });

  it("is absent when the step is not in backoff", () => {
    expect(retryStatusLine({ status: "in_progress", retryAt: null, transientFailures: 1, maxRetries: 3 }, now)).toBeNull();
    expect(retryStatusLine({ status: "pending", retryAt: null, transientFailures: 0, maxRetries: 3 }, now)).toBeNull();
  });

  it("tallies steps by how they ended", () => {
    expect(stepTally([{ status: "done" }, { status: "skipped" }, { status: "failed" }, { status: "pending" }])).toEqual({
      done: 1,
      skipped: 1,
      failed: 1,
      total: 4,
    });
  });
});
