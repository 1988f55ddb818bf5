/** The admin timeline's time axis: round ticks from 0 and their labels (ms since the plan was created). */

/** Step sizes the time axis may use, in ms. */
const TICK_STEPS = [
  100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
];

/**
 * Ticks for a time axis from 0 to at least `span` ms, at a round step: the last tick is
 * the axis's end, so at most `maxTicks` + 1 ticks, the first 0.
 */
export function timeTicks(span: number, maxTicks = 6): number[] {
  const total = Math.max(span, 1);
  const step = TICK_STEPS.find((candidate) => total / candidate <= maxTicks) ?? Math.ceil(total / maxTicks / 3_600_000) * 3_600_000;
  const count = Math.ceil(total / step);
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

/** A tick's label: "0 s", "500 ms", "2.5 s", "1 m 30 s", "1 h 5 m". */
export function formatTick(ms: number): string {
  if (ms === 0) return "0 s";
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  if (ms < 3_600_000) {
    const minutes = Math.floor(ms / 60_000);
    const seconds = Math.round((ms % 60_000) / 1_000);
    return seconds ? `${minutes} m ${seconds} s` : `${minutes} m`;
  }
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.round((ms % 3_600_000) / 60_000);
  return minutes ? `${hours} h ${minutes} m` : `${hours} h`;
}

/**
 * On a phone the axis has room for every other label: the first and the last always
 * show, and the last's neighbour gives way to it, so no two shown labels are adjacent.
 */
export function phoneHidesTick(index: number, count: number): boolean {
  return index !== 0 && index !== count - 1 && (index % 2 === 1 || index === count - 2);
}
