import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planPhaseNote, stepPhase, stepSegments } from "./admin-timeline.ts";
import { STEP_STATUSES } from "../core/types.ts";

describe("a step's timeline segments", () => {
  it("splits queued, running, waiting for a person and a retry wait", () => {
    expect(
      stepSegments({
        readyAt: 0,
        endedAt: 100,
        now: 500,
        runs: [
          { startedAt: 10, endedAt: 20, status: "failed" },
          { startedAt: 30, endedAt: 40, status: "blocked" },
          { startedAt: 70, endedAt: 100, status: "succeeded" },
        ],
        forms: [{ openedAt: 40, closedAt: 60 }],
      }),
    ).toEqual([
      { kind: "queued", start: 0, end: 10 },
      { kind: "running", start: 10, end: 20 },
      { kind: "retry", start: 20, end: 30 },
      { kind: "running", start: 30, end: 40 },
      { kind: "waiting", start: 40, end: 60 },
      { kind: "queued", start: 60, end: 70 },
      { kind: "running", start: 70, end: 100 },
    ]);
  });

  it("keeps an open form waiting until now, never drawn as running", () => {
    const segments = stepSegments({
      readyAt: 0,
      endedAt: null,
      now: 90,
      runs: [{ startedAt: 5, endedAt: 10, status: "blocked" }],
      forms: [{ openedAt: 10, closedAt: null }],
    });
    expect(segments.at(-1)).toEqual({ kind: "waiting", start: 10, end: 90 });
  });

  it("shows a step still waiting out its backoff as a retry up to now", () => {
    expect(
      stepSegments({ readyAt: 0, endedAt: null, now: 50, runs: [{ startedAt: 0, endedAt: 20, status: "failed" }], forms: [] }).at(-1),
    ).toEqual({ kind: "retry", start: 20, end: 50 });
  });

  it("never overlaps, never runs backwards and stays within ready..end", () => {
    const interval = fc.tuple(fc.nat(1000), fc.nat(300)).map(([start, length]) => ({ start, end: start + length }));
    fc.assert(
      fc.property(
        fc.nat(200),
        fc.option(fc.nat(1500), { nil: null }),
        fc.array(fc.tuple(interval, fc.constantFrom("failed", "succeeded", "blocked")), { maxLength: 5 }),
        fc.array(interval, { maxLength: 3 }),
        (readyAt, endedAt, runs, forms) => {
          const segments = stepSegments({
            readyAt,
            endedAt,
            now: 2000,
            runs: runs.map(([span, status]) => ({ startedAt: span.start, endedAt: span.end, status })),
            forms: forms.map((span) => ({ openedAt: span.start, closedAt: span.end })),
          });
          const stop = endedAt ?? 2000;
          for (const [i, segment] of segments.entries()) {
            expect(segment.end).toBeGreaterThan(segment.start);
            expect(segment.end).toBeLessThanOrEqual(stop);
            if (i > 0) expect(segment.start).toBeGreaterThanOrEqual(segments[i - 1].end);
          }
        },
      ),
    );
  });

  it("draws a failed step waiting for the commander as deciding until now, the decision run included", () => {
    expect(
      stepSegments({
        readyAt: 0,
        endedAt: 20,
        now: 80,
        decisionPending: true,
        runs: [
          { startedAt: 0, endedAt: 20, status: "failed", kind: "step" },
          { startedAt: 25, endedAt: null, status: "running", kind: "decision" },
        ],
        forms: [],
      }),
    ).toEqual([
      { kind: "running", start: 0, end: 20 },
      { kind: "deciding", start: 20, end: 80 },
    ]);
  });

  it("keeps a past decision that led to a retry apart from the runs", () => {
    const kinds = stepSegments({
      readyAt: 0,
      endedAt: 100,
      now: 200,
      runs: [
        { startedAt: 0, endedAt: 20, status: "failed", kind: "step" },
        { startedAt: 30, endedAt: 40, status: "succeeded", kind: "decision" },
        { startedAt: 50, endedAt: 100, status: "succeeded", kind: "step" },
      ],
      forms: [],
    }).map((segment) => segment.kind);
    expect(kinds).toEqual(["running", "deciding", "queued", "running"]);
  });
});

describe("a step's phase", () => {
  const step = (status: (typeof STEP_STATUSES)[number], more: Partial<Parameters<typeof stepPhase>[0]> = {}) =>
    stepPhase({ status, decisionPending: false, retryAt: null, transientFailures: 0, ...more });

  it("never calls a failed step that waits for a decision running", () => {
    expect(step("failed", { decisionPending: true })).toBe("deciding");
    expect(step("failed")).toBe("failed");
  });

  it("says retrying for a pending step in backoff, queued otherwise", () => {
    expect(step("pending", { retryAt: new Date(1), transientFailures: 1 })).toBe("retrying");
    expect(step("pending")).toBe("queued");
    expect(step("pending", { retryAt: new Date(1), transientFailures: 0 })).toBe("queued");
  });

  it("says waiting for a blocked step (an open form), running for one in progress", () => {
    expect(step("blocked")).toBe("waiting");
    expect(step("in_progress")).toBe("running");
    expect(step("in_progress", { decisionPending: true })).toBe("running");
  });

  it("has a phase for every status", () => {
    for (const status of STEP_STATUSES) expect(step(status)).toMatch(/^[a-z]+$/);
    expect(step("done")).toBe("done");
    expect(step("skipped")).toBe("skipped");
  });

  it("notes what the plan waits for, or nothing", () => {
    expect(
      planPhaseNote([
        { index: 1, phase: "done" },
        { index: 2, phase: "running" },
      ]),
    ).toBeNull();
    expect(
      planPhaseNote([
        { index: 2, phase: "deciding" },
        { index: 3, phase: "waiting" },
      ]),
    ).toBe("waiting for a decision about step 2; waiting for a person on step 3");
  });
});
