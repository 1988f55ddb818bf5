import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stepSegments } from "./admin-timeline.ts";

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
});
