"use client";
import { Badge } from "../ui/badge.tsx";
import { PLAN_OUTCOMES, VISUAL_STATES, VISUAL_STYLE } from "./step-status.ts";

/** What the graph's colours and marks mean: each step state, and how a finished plan can end. */
export function PlanLegend() {
  return (
    <details className="group shrink-0 border-b border-zinc-200 px-3 py-1 text-xs dark:border-zinc-800" data-testid="plan-legend" open>
      <summary className="cursor-pointer select-none text-zinc-600 dark:text-zinc-400">Legend</summary>
      <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1" aria-label="Step states">
        {VISUAL_STATES.map((state) => (
          <li key={state} className="flex items-center gap-1 text-zinc-700 dark:text-zinc-300" data-state={state}>
            <span
              aria-hidden="true"
              className={`inline-flex h-4 w-5 items-center justify-center rounded border-2 text-[10px] ${VISUAL_STYLE[state].swatch}`}
            >
              {VISUAL_STYLE[state].mark}
            </span>
            {VISUAL_STYLE[state].label}
          </li>
        ))}
      </ul>
      <ul className="mt-1 mb-0.5 flex flex-wrap gap-x-3 gap-y-1" aria-label="Plan outcomes">
        {PLAN_OUTCOMES.map((outcome) => (
          <li key={outcome.status} className="flex items-center gap-1 text-zinc-700 dark:text-zinc-300" data-outcome={outcome.status}>
            <Badge tone={outcome.tone}>plan {outcome.status}</Badge>
            {outcome.label}
          </li>
        ))}
      </ul>
    </details>
  );
}
