/**
 * What a finished (or running) plan cost in time: per step, how long it waited once
 * ready and how long its runs worked; per plan, the makespan, the critical path
 * through the dependency graph weighted by service time, and useful parallelism
 * (critical-path work / total agent work, as DESIGN.md defines it). Pure.
 */
import { criticalPath, serviceMs } from "../core/critical-path.ts";

export interface MetricsStep {
  index: number;
  waitFor: number[];
  status: string;
  attempts: number;
}

export interface MetricsRun {
  stepIndex: number | null;
  startedAt: string | null;
  endedAt: string | null;
}

export interface StepMetrics {
  index: number;
  /** from the moment its last dependency ended (or the plan began) to its first run */
  queueWaitMs: number | null;
  /** summed duration of its runs */
  serviceMs: number;
  retries: number;
  onCriticalPath: boolean;
}

export interface PlanMetrics {
  makespanMs: number | null;
  criticalPathMs: number;
  totalAgentWorkMs: number;
  /** critical-path work / total agent work; 1 = no parallel work was possible or done */
  usefulParallelism: number | null;
  steps: StepMetrics[];
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export function computePlanMetrics(input: {
  createdAt: string;
  endedAt: string | null;
  steps: MetricsStep[];
  runs: MetricsRun[];
}): PlanMetrics {
  const planStart = Date.parse(input.createdAt);
  const byIndex = new Map(input.steps.map((step) => [step.index, step]));
  const runsOf = new Map<number, { start: number; end: number | null }[]>();
  for (const run of input.runs) {
    const start = ms(run.startedAt);
    if (run.stepIndex === null || start === null) continue;
    const list = runsOf.get(run.stepIndex) ?? [];
    list.push({ start, end: ms(run.endedAt) });
    runsOf.set(run.stepIndex, list);
  }
  const service = (index: number) => serviceMs(runsOf.get(index) ?? []);
  const lastEnd = (index: number) => {
    const ends = (runsOf.get(index) ?? []).map((run) => run.end).filter((end): end is number => end !== null);
    return ends.length > 0 ? Math.max(...ends) : null;
  };

  // the service-weighted critical path: the same one the admin timeline marks
  const sorted = [...input.steps].sort((a, b) => a.index - b.index);
  const path = criticalPath(sorted.map((step) => ({ index: step.index, waitFor: step.waitFor, weight: service(step.index) })));
  const critical = new Set(path.indexes);
  const criticalPathMs = path.length;

  const steps: StepMetrics[] = sorted.map((step) => {
    const firstStart = Math.min(...(runsOf.get(step.index) ?? []).map((run) => run.start));
    const dependencyEnds = step.waitFor.filter((dependency) => byIndex.has(dependency)).map(lastEnd);
    const readyAt = dependencyEnds.includes(null) ? null : Math.max(planStart, ...(dependencyEnds as number[]));
    return {
      index: step.index,
      queueWaitMs: Number.isFinite(firstStart) && readyAt !== null ? Math.max(0, firstStart - readyAt) : null,
      serviceMs: service(step.index),
      retries: Math.max(0, (runsOf.get(step.index)?.length ?? 0) - 1),
      onCriticalPath: critical.has(step.index),
    };
  });
  const totalAgentWorkMs = steps.reduce((sum, step) => sum + step.serviceMs, 0);
  const end = ms(input.endedAt);
  return {
    makespanMs: end === null ? null : end - planStart,
    criticalPathMs,
    totalAgentWorkMs,
    usefulParallelism: totalAgentWorkMs > 0 ? criticalPathMs / totalAgentWorkMs : null,
    steps,
  };
}
