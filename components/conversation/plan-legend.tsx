"use client";
import { useTranslations } from "next-intl";
import { Badge } from "../ui/badge.tsx";
import { PLAN_OUTCOMES, PLAN_TONE, VISUAL_STATES, VISUAL_STYLE } from "./step-status.ts";

/** What the graph's colours and marks mean: each step state, and how a finished plan can end. */
export function PlanLegend() {
  const t = useTranslations("plan");
  return (
    <details className="group shrink-0 border-b border-zinc-200 px-3 py-1 text-xs dark:border-zinc-800" data-testid="plan-legend" open>
      <summary className="cursor-pointer select-none text-zinc-600 dark:text-zinc-400">{t("legend")}</summary>
      <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1" aria-label={t("stepStates")}>
        {VISUAL_STATES.map((state) => (
          <li key={state} className="flex items-center gap-1 text-zinc-700 dark:text-zinc-300" data-state={state}>
            <span
              aria-hidden="true"
              className={`inline-flex h-4 w-5 items-center justify-center rounded border-2 text-[10px] ${VISUAL_STYLE[state].swatch}`}
            >
              {VISUAL_STYLE[state].mark}
            </span>
            {t(`stepState.${state}`)}
          </li>
        ))}
      </ul>
      <ul className="mt-1 mb-0.5 flex flex-wrap gap-x-3 gap-y-1" aria-label={t("outcomes")}>
        {PLAN_OUTCOMES.map((outcome) => (
          <li key={outcome} className="flex items-center gap-1 text-zinc-700 dark:text-zinc-300" data-outcome={outcome}>
            <Badge tone={PLAN_TONE[outcome]}>{t("outcomeBadge", { status: outcome })}</Badge>
            {t(`outcome.${outcome}`)}
          </li>
        ))}
      </ul>
    </details>
  );
}
