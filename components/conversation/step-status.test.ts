import { describe, expect, it } from "vitest";
import { VISUAL_STATES, VISUAL_STYLE, retryStatus, stepTally, stepVisualState } from "./step-status.ts";

describe("a step's retry status line", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const at = (ms: number) => new Date(now + ms).toISOString();

  it("says attempt N of M and the seconds until the next while a retry waits", () => {
    expect(retryStatus({ status: "pending", retryAt: at(1_200), transientFailures: 1, maxRetries: 3 }, now)).toEqual({
      attempt: 2,
      total: 4,
      seconds: 2,
    });
    expect(retryStatus({ status: "pending", retryAt: at(-5), transientFailures: 3, maxRetries: 3 }, now)).toEqual({
      attempt: 4,
      total: 4,
      seconds: 0,
    });
    // the hard cap applies, whatever a plan asked for
    expect(retryStatus({ status: "pending", retryAt: at(1_000), transientFailures: 1, maxRetries: 50 }, now)).toEqual({
      attempt: 2,
      total: 11,
      seconds: 1,
    });
  });

  it("is absent when the step is not in backoff", () => {
    expect(retryStatus({ status: "in_progress", retryAt: null, transientFailures: 1, maxRetries: 3 }, now)).toBeNull();
    expect(retryStatus({ status: "pending", retryAt: null, transientFailures: 0, maxRetries: 3 }, now)).toBeNull();
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

describe("a step's visual state", () => {
  it("reads each stored status the way a person thinks of it", () => {
    const at = "2026-01-01T00:00:05Z";
    expect(stepVisualState({ status: "pending", retryAt: null, transientFailures: 0 })).toBe("queued");
    expect(stepVisualState({ status: "pending", retryAt: at, transientFailures: 1 })).toBe("retrying");
    expect(stepVisualState({ status: "in_progress", retryAt: null, transientFailures: 0 })).toBe("running");
    expect(stepVisualState({ status: "blocked", retryAt: null, transientFailures: 0 })).toBe("waiting");
    for (const status of ["done", "failed", "skipped"] as const) {
      expect(stepVisualState({ status, retryAt: null, transientFailures: 0 })).toBe(status);
    }
  });

  // its words are distinct too: i18n/messages.test.ts checks them in every language
  it("gives every state its own colours and mark", () => {
    expect(VISUAL_STATES).toHaveLength(7);
    for (const key of ["node", "mark"] as const) {
      expect(new Set(VISUAL_STATES.map((state) => VISUAL_STYLE[state][key])).size).toBe(7);
    }
    // waiting for a person is never drawn in running's colour
    expect(VISUAL_STYLE.waiting.node).not.toContain("sky");
    expect(VISUAL_STYLE.waiting.node).not.toContain("emerald");
  });
});
