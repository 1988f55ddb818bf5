/**
 * Value axes that start at zero and end at a round number just above the data; an
 * axis with nothing on it (no cost spent) ends at a small epsilon rather than an
 * arbitrary default, so $0 spent does not draw an axis running to $4.
 */

/** The smallest round number (1, 2, 2.5, 5 × 10^k) at or above `value`. */
export function niceCeil(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 0;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 2.5, 5, 10]) {
    const candidate = factor * power;
    if (candidate >= value * (1 - 1e-12)) return Number(candidate.toPrecision(12));
  }
  return 10 * power;
}

/** [0, a round maximum ≥ every value, at least `epsilon`]. */
export function zeroBasedDomain(values: readonly number[], epsilon: number): [number, number] {
  const max = Math.max(0, ...values.filter((v) => Number.isFinite(v)));
  return [0, Math.max(niceCeil(max), epsilon)];
}

/** Evenly spaced ticks from 0 to the domain's end (which is round, so the ticks are too). */
export function axisTicks(domain: [number, number], count = 4): number[] {
  const [, end] = domain;
  return Array.from({ length: count + 1 }, (_, i) => Number(((end * i) / count).toPrecision(12)));
}

/** A cost tick as dollars with as many decimals as the axis's scale needs: $0, $0.0025, $1.50, $120. */
export function formatCost(value: number, domainEnd: number): string {
  if (value === 0) return "$0";
  const decimals = domainEnd >= 100 ? 0 : domainEnd >= 1 ? 2 : Math.min(6, Math.ceil(-Math.log10(domainEnd / 4)) + 1);
  return `$${value.toFixed(decimals)}`;
}

/** A token tick, shortened: 0, 950, 1.2k, 3M. */
export function formatCount(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${Number((value / 1_000_000).toFixed(1))}M`;
  if (Math.abs(value) >= 1_000) return `${Number((value / 1_000).toFixed(1))}k`;
  return String(Number(value.toFixed(2)));
}
