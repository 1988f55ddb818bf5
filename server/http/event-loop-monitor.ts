/**
 * The server's event-loop delay, sampled by Node's own histogram (a timer every
 * 10 ms in libuv: cheap), so a slow synchronous stretch anywhere — a big JSON
 * parse, a hot loop in a request — is visible from outside through /api/v1/metrics.
 * Kept on globalThis: Next bundles route handlers apart from the custom server.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

const KEY = Symbol.for("baton.eventLoopMonitor");
type Holder = { [KEY]?: { histogram: IntervalHistogram; since: number } };

export interface EventLoopStats {
  /** milliseconds */
  p50: number;
  p99: number;
  max: number;
  mean: number;
  samples: number;
  /** when this window began (ISO) */
  since: string;
}

export function startEventLoopMonitor(resolutionMs = 10): void {
  const holder = globalThis as Holder;
  if (holder[KEY]) return;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  holder[KEY] = { histogram, since: Date.now() };
}

/** null when the monitor was not started (a process other than the server) */
export function eventLoopStats(): EventLoopStats | null {
  const monitor = (globalThis as Holder)[KEY];
  if (!monitor) return null;
  const { histogram } = monitor;
  const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);
  return {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    mean: ms(histogram.mean),
    samples: histogram.count,
    since: new Date(monitor.since).toISOString(),
  };
}

/** Starts a new window (e.g. right before a load the caller wants to measure). */
export function resetEventLoopStats(): void {
  const monitor = (globalThis as Holder)[KEY];
  if (!monitor) return;
  monitor.histogram.reset();
  monitor.since = Date.now();
}
