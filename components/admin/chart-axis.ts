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

/** Longest category label shown whole; a longer one is cut with "…" (the tooltip names it in full). */
export const MAX_CATEGORY_CHARS = 22;
/** tilts tried in turn: the first whose neighbouring labels are a line apart */
const TILTS_DEGREES = [40, 65, 90];
/** a label's line, in ems */
export const LINE_HEIGHT = 1.2;
/** Recharts' own height for an x axis with labels across */
export const ACROSS_AXIS_HEIGHT = 30;

/** A label's width in px, estimated: about 0.6 em a character, a full em for wide (CJK) ones. */
function labelWidth(label: string, fontSize: number): number {
  let ems = 0;
  for (const char of label)
    ems += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(char) ? 1 : 0.6;
  return ems * fontSize;
}

function shorten(label: string): string {
  const chars = Array.from(label);
  return chars.length <= MAX_CATEGORY_CHARS ? label : `${chars.slice(0, MAX_CATEGORY_CHARS - 1).join("")}…`;
}

export interface CategoryAxis {
  /** 0 while every label fits its slot across; else the labels are tilted */
  angle: number;
  /** the axis's height in px: room for the tilted labels */
  height: number;
  format: (label: string) => string;
}

/**
 * How a category axis (models, agents) shows every one of its labels in `plotWidth`
 * px: across while each fits its share of the width, else tilted just enough that
 * neighbours stay a line apart, with the axis tall enough for the longest. No label
 * is left out, as a chart's own thinning would.
 */
export function categoryAxis(input: { labels: readonly string[]; plotWidth: number; fontSize: number }): CategoryAxis {
  const { labels, plotWidth, fontSize } = input;
  const widest = Math.max(0, ...labels.map((label) => labelWidth(shorten(label), fontSize)));
  const slot = labels.length === 0 ? plotWidth : plotWidth / labels.length;
  // a little space between neighbours, so two labels never touch
  if (widest + fontSize / 2 <= slot) return { angle: 0, height: ACROSS_AXIS_HEIGHT, format: shorten };
  // tilted labels are parallel: a slot's width times sin(tilt) is the space between two
  const degrees = TILTS_DEGREES.find((tilt) => slot * Math.sin((tilt * Math.PI) / 180) >= LINE_HEIGHT * fontSize) ?? 90;
  const radians = (degrees * Math.PI) / 180;
  return { angle: -degrees, height: Math.ceil(widest * Math.sin(radians) + fontSize * Math.cos(radians) + 10), format: shorten };
}
