import Link from "next/link";
import { useTranslations } from "next-intl";
import type { PlanTimeline, SegmentKind, StepPhase } from "@/server/protocol/rest/admin-views.ts";
import { formatTick, phoneHidesTick, timeTicks } from "./time-axis.ts";
import { Badge } from "../ui/badge.tsx";
import { PLAN_TONE } from "../conversation/step-status.ts";

/** "1,234 tokens · $0.0123", marked "≈" when a run's usage in it was estimated (cut mid-stream) */
function Usage({ tokens, cost, usageEstimated }: { tokens: number; cost: number; usageEstimated: boolean }) {
  const t = useTranslations("admin");
  return (
    <span data-estimated={usageEstimated ? "true" : undefined} title={usageEstimated ? t("plans.estimatedNote") : undefined}>
      {usageEstimated ? "≈ " : ""}
      {t("timeline.usage", { tokens: tokens.toLocaleString("en"), cost: cost.toFixed(4) })}
    </span>
  );
}

/** One colour and pattern per kind of time, so waiting for a person never reads as running (words: admin.timeline.segment). */
const SEGMENT_BAR: Record<SegmentKind, string> = {
  queued:
    "bg-zinc-300 dark:bg-zinc-600 [background-image:repeating-linear-gradient(45deg,transparent,transparent_3px,rgba(0,0,0,.18)_3px,rgba(0,0,0,.18)_6px)]",
  running: "bg-sky-500",
  waiting:
    "bg-amber-400 [background-image:repeating-linear-gradient(90deg,transparent,transparent_4px,rgba(0,0,0,.2)_4px,rgba(0,0,0,.2)_6px)]",
  deciding:
    "bg-violet-500 [background-image:repeating-linear-gradient(0deg,transparent,transparent_3px,rgba(255,255,255,.4)_3px,rgba(255,255,255,.4)_5px)]",
  retry:
    "bg-orange-500 [background-image:repeating-linear-gradient(-45deg,transparent,transparent_3px,rgba(255,255,255,.45)_3px,rgba(255,255,255,.45)_6px)]",
};

const KINDS: SegmentKind[] = ["queued", "running", "waiting", "deciding", "retry"];

/** How a step ended, beside its bar: only a step that ended has a finished colour. */
const END_MARK: Record<string, string> = { done: "✓", failed: "✕", skipped: "⤼" };

/** A Gantt-like row per step over a time axis: queued, running, waiting for a person and retry waits; critical path outlined. */
export function PlanTimelineView({ timeline }: { timeline: PlanTimeline }) {
  const t = useTranslations("admin.timeline");
  const tPlan = useTranslations("plan");
  const segmentLabel = (kind: SegmentKind) => t("segment", { kind });
  // a failed step the commander still decides about is not "running"
  const phaseLabel = (phase: StepPhase) => t("phase", { phase });
  const ticks = timeTicks(timeline.span);
  const axisEnd = ticks.at(-1) ?? 1;
  const pct = (ms: number) => `${(Math.min(ms, axisEnd) / axisEnd) * 100}%`;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-lg font-semibold">{timeline.title}</h2>
        <span title={tPlan(`statusHint.${timeline.status}`)} data-testid="timeline-status">
          <Badge tone={PLAN_TONE[timeline.status]}>{tPlan(`status.${timeline.status}`)}</Badge>
        </span>
        {timeline.phaseNote ? (
          <span className="text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="timeline-phase-note">
            {timeline.phaseNote}
          </span>
        ) : null}
        <span className="text-sm text-zinc-600 dark:text-zinc-400">
          {t.rich("in", {
            title: timeline.conversation.title,
            link: (chunks) => (
              <Link href={`/c/${timeline.conversation.id}`} className="text-accent hover:underline" data-testid="timeline-conversation">
                {chunks}
              </Link>
            ),
          })}
        </span>
        <span className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="timeline-usage">
          · <Usage {...timeline} />
        </span>
      </div>
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">{t("request", { request: timeline.request })}</p>
      <section
        aria-label={t("timeline")}
        className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
        data-testid="plan-timeline"
      >
        <ul
          className="mb-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-700 dark:text-zinc-300"
          aria-label={t("legend")}
          data-testid="timeline-legend"
        >
          {KINDS.map((kind) => (
            <li key={kind} data-kind={kind}>
              <span aria-hidden="true" className={`mr-1 inline-block h-2.5 w-5 rounded-sm align-middle ${SEGMENT_BAR[kind]}`} />
              {segmentLabel(kind)}
            </li>
          ))}
          <li>
            <span
              aria-hidden="true"
              className="mr-1 inline-block h-2.5 w-5 rounded-sm border-2 border-indigo-600 align-middle dark:border-indigo-400"
            />
            {t("criticalPath")}
          </li>
          <li className="ml-auto">{t("total", { duration: formatTick(Math.round(timeline.span)) })}</li>
        </ul>
        <div className="grid grid-cols-[7rem_1fr] gap-3 text-xs sm:grid-cols-[12rem_1fr]">
          <div />
          <div className="relative h-5 border-b border-zinc-300 dark:border-zinc-700" data-testid="timeline-axis" title={t("axis")}>
            {ticks.map((tick, i) => (
              <span
                key={tick}
                data-testid="timeline-tick"
                data-ms={tick}
                className={`absolute bottom-0 whitespace-nowrap text-zinc-600 dark:text-zinc-400 ${i === 0 ? "" : i === ticks.length - 1 ? "-translate-x-full" : "-translate-x-1/2"} ${phoneHidesTick(i, ticks.length) ? "max-sm:hidden" : ""}`}
                style={{ left: pct(tick) }}
              >
                {formatTick(tick)}
                <span aria-hidden="true" className="absolute -bottom-1 left-1/2 h-1 border-l border-zinc-400" />
              </span>
            ))}
          </div>
        </div>
        <ol className="mt-2 space-y-2">
          {timeline.steps.map((step) => (
            <li
              key={step.index}
              className="grid grid-cols-[7rem_1fr] items-center gap-3 text-xs sm:grid-cols-[12rem_1fr]"
              data-critical={step.critical}
              data-testid="timeline-step"
            >
              <div className="min-w-0">
                <p className={`truncate font-medium ${step.critical ? "text-indigo-700 dark:text-indigo-300" : ""}`}>
                  {step.index}. {step.title}
                </p>
                <p className="truncate text-zinc-600 dark:text-zinc-400">
                  {step.assignee} ·{" "}
                  <span data-testid="timeline-phase" data-phase={step.phase}>
                    {phaseLabel(step.phase)}
                  </span>{" "}
                  · {t("attempts", { count: step.attempts })}
                </p>
              </div>
              <div
                className={`relative h-5 rounded bg-zinc-100 dark:bg-zinc-900 ${step.critical ? "ring-2 ring-indigo-600 dark:ring-indigo-400" : ""}`}
                title={step.segments.map((s) => `${segmentLabel(s.kind)} ${formatTick(s.start)}–${formatTick(s.end)}`).join(", ")}
              >
                {/* faint lines under the ticks, so a bar's times can be read off the axis */}
                {ticks.slice(1, -1).map((tick) => (
                  <span
                    key={tick}
                    aria-hidden="true"
                    className="absolute inset-y-0 border-l border-zinc-200 dark:border-zinc-800"
                    style={{ left: pct(tick) }}
                  />
                ))}
                {step.segments.map((segment, i) => (
                  <div
                    key={i}
                    data-testid="timeline-segment"
                    data-kind={segment.kind}
                    className={`absolute inset-y-0.5 rounded-sm ${SEGMENT_BAR[segment.kind]}`}
                    style={{ left: pct(segment.start), width: `max(2px, ${pct(segment.end - segment.start)})` }}
                  />
                ))}
                {END_MARK[step.status] && step.endedAt !== null ? (
                  <span
                    className="absolute top-0.5 text-[11px] font-bold"
                    style={{ left: `calc(${pct(step.endedAt)} + 3px)` }}
                    title={t("stepStatus", { status: step.status })}
                  >
                    <span aria-hidden="true">{END_MARK[step.status]}</span>
                    <span className="sr-only">{t("stepStatus", { status: step.status })}</span>
                  </span>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      </section>
      <section aria-label={t("details")} className="space-y-3">
        {timeline.steps.map((step) => (
          <details key={step.index} className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800">
            <summary className="cursor-pointer font-medium">
              {step.index}. {step.title} — {phaseLabel(step.phase)} · <Usage {...step} />
            </summary>
            <div className="mt-2 space-y-2">
              {step.failureReason ? <p className="text-red-700 dark:text-red-400">{t("failure", { reason: step.failureReason })}</p> : null}
              {step.outputSummary ? <p>{t("summary", { summary: step.outputSummary })}</p> : null}
              {step.outputFiles.length ? <p>{t("files", { files: step.outputFiles.join(", ") })}</p> : null}
              <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900">
                {step.renderedInput ?? t("notDispatched")}
              </pre>
              <ol className="space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400">
                {timeline.log
                  .filter((entry) => entry.stepIndex === step.index)
                  .map((entry, i) => (
                    <li key={i}>
                      <span className="font-mono">{entry.at.slice(11, 23)}</span> [{entry.phase}] {entry.message}
                    </li>
                  ))}
              </ol>
            </div>
          </details>
        ))}
      </section>
    </div>
  );
}
