import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { announceDatabaseStatus } from "./database-status.ts";

describe("announceDatabaseStatus", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setUp() {
    let listener: (reachable: boolean) => void = () => {};
    const sent: boolean[] = [];
    const status = announceDatabaseStatus({
      subscribe: (l) => ((listener = l), () => (listener = () => {})),
      emitToAll: ({ reachable }) => sent.push(reachable),
      settleMs: 1_000,
    });
    return { status, sent, change: (reachable: boolean) => listener(reachable) };
  }

  it("tells an outage and its end once each, after the state held", () => {
    const { status, sent, change } = setUp();
    change(false);
    vi.advanceTimersByTime(999);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([false]);
    expect(status.current()).toEqual({ reachable: false });
    change(true);
    vi.advanceTimersByTime(1_000);
    expect(sent).toEqual([false, true]);
    expect(status.current()).toBeNull();
  });

  it("sends nothing while the database flaps faster than it settles", () => {
    const { sent, change } = setUp();
    for (let i = 0; i < 50; i++) {
      change(false);
      vi.advanceTimersByTime(200);
      change(true);
      vi.advanceTimersByTime(200);
    }
    vi.advanceTimersByTime(5_000);
    expect(sent).toEqual([]);
  });

  it("stops telling once stopped", () => {
    const { status, sent, change } = setUp();
    change(false);
    status.stop();
    change(false);
    vi.advanceTimersByTime(5_000);
    expect(sent).toEqual([]);
  });
});
