/**
 * The critical path of a plan: the chain of dependencies (wait_for) whose weights add
 * up to the longest. The weight of a step is its service time — the summed duration
 * of its runs — so the admin timeline and the plan metrics mark the same steps and
 * report the same length. Pure.
 */

export interface PathStep {
  index: number;
  waitFor: readonly number[];
  /** the step's service time (ms); see serviceMs */
  weight: number;
}

export interface CriticalPath {
  /** the steps on the path, first to last */
  indexes: number[];
  /** the sum of their weights */
  length: number;
}

/** Summed duration of the runs that ended (a run still going has not served yet). */
export function serviceMs(runs: readonly { start: number; end: number | null }[]): number {
  return runs.reduce((sum, run) => sum + (run.end === null ? 0 : Math.max(0, run.end - run.start)), 0);
}

/**
 * The heaviest chain through `waitFor`. Ties go to the earlier-listed step (and the
 * earlier-listed dependency); dependencies that are not in `steps` weigh nothing, and
 * a cycle (never in a validated plan) is cut where it closes. Empty for no steps.
 */
export function criticalPath(steps: readonly PathStep[]): CriticalPath {
  const byIndex = new Map(steps.map((step) => [step.index, step]));
  const best = new Map<number, { total: number; previous: number | null }>();
  const visiting = new Set<number>();
  const visit = (index: number): number => {
    const known = best.get(index);
    if (known) return known.total;
    const step = byIndex.get(index);
    if (!step || visiting.has(index)) return 0;
    visiting.add(index);
    let previous: number | null = null;
    let longest = 0;
    for (const upstream of step.waitFor) {
      if (!byIndex.has(upstream)) continue;
      const total = visit(upstream);
      if (previous === null || total > longest) {
        longest = total;
        previous = upstream;
      }
    }
    visiting.delete(index);
    const total = longest + step.weight;
    best.set(index, { total, previous });
    return total;
  };
  let end: number | null = null;
  for (const step of steps) if (end === null || visit(step.index) > visit(end)) end = step.index;
  const path: number[] = [];
  const seen = new Set<number>();
  for (let at = end; at !== null && !seen.has(at); at = best.get(at)?.previous ?? null) {
    seen.add(at);
    path.push(at);
  }
  path.reverse();
  return { indexes: path, length: path.reduce((sum, index) => sum + (byIndex.get(index)?.weight ?? 0), 0) };
}
