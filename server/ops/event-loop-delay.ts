/**
 * How late the event loop runs, as `baton_event_loop_delay_seconds{stat}`: Node's
 * `monitorEventLoopDelay` histogram with its sampling interval taken out.
 *
 * That histogram records the time between two ticks of a repeating timer, which is the
 * interval itself plus how late the tick came: on an idle process every sample is about
 * 10 ms at the default resolution. prom-client's `nodejs_eventloop_lag_*` report it as
 * it is (prom-client issue #370), so they never read below the interval; a timer, a
 * socket write or a database reply waits only for the lateness. Each scrape reads the
 * window since the previous one, as prom-client's do.
 */
import { monitorEventLoopDelay, type Histogram } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

/** the sampling interval, ms (prom-client's default for its own histogram) */
export const EVENT_LOOP_RESOLUTION_MS = 10;

export const EVENT_LOOP_STATS = ["p50", "p90", "p99", "max", "mean"] as const;
export type EventLoopStat = (typeof EVENT_LOOP_STATS)[number];

/**
 * The lateness in seconds, by statistic, of a histogram of tick intervals (ns) sampled
 * every `resolutionMs`. A tick can come a hair early (the loop's clock is in whole ms),
 * so a sample shorter than the interval is 0, not negative. NaN with no samples yet.
 */
export function lateness(
  histogram: Pick<Histogram, "count" | "percentile" | "max" | "mean">,
  resolutionMs: number,
): Record<EventLoopStat, number> {
  const seconds = (ns: number) => (histogram.count === 0 ? Number.NaN : Math.max(0, ns / 1e6 - resolutionMs) / 1000);
  return {
    p50: seconds(histogram.percentile(50)),
    p90: seconds(histogram.percentile(90)),
    p99: seconds(histogram.percentile(99)),
    max: seconds(histogram.max),
    mean: seconds(histogram.mean),
  };
}

export function registerEventLoopDelay(registry: Registry, resolutionMs = EVENT_LOOP_RESOLUTION_MS): void {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  new Gauge({
    name: "baton_event_loop_delay_seconds",
    help: `How late the event loop ran since the previous scrape (timer ticks every ${resolutionMs} ms, the interval taken out)`,
    labelNames: ["stat"],
    registers: [registry],
    collect() {
      const figures = lateness(histogram, resolutionMs);
      for (const stat of EVENT_LOOP_STATS) this.set({ stat }, figures[stat]);
      histogram.reset();
    },
  });
}
