import type { PlanTimeline } from "@/server/services/admin-plans.ts";
import { Badge } from "../ui/badge.tsx";
import { PLAN_STATUS_HINT, PLAN_TONE, STEP_STYLE } from "../conversation/step-status.ts";

const BAR: Record<string, string> = {
  done: "bg-emerald-500",
  failed: "bg-red-500",
  in_progress: "bg-sky-500",
  blocked: "bg-amber-500",
  skipped: "bg-zinc-400",
  pending: "bg-zinc-300",
};

function seconds(ms: number | null) {
  return ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`;
}

/** A Gantt-like row per step: waiting (ready → start) hatched, running solid; critical path outlined. */
export function PlanTimelineView({ timeline }: { timeline: PlanTimeline }) {
  const span = Math.max(1, ...timeline.steps.map((s) => s.endedAt ?? s.startedAt ?? s.readyAt ?? 0));
  const pct = (ms: number) => `${(ms / span) * 100}%`;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-lg font-semibold">{timeline.title}</h2>
        <span title={PLAN_STATUS_HINT[timeline.status]} data-testid="timeline-status">
          <Badge tone={PLAN_TONE[timeline.status]}>{timeline.status}</Badge>
        </span>
        <span className="text-sm text-zinc-500">in “{timeline.conversation.title}”</span>
      </div>
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">Request: {timeline.request}</p>
      <section aria-label="Timeline" className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="plan-timeline">
        <div className="mb-2 flex gap-4 text-xs text-zinc-500">
          <span>
            <span className="mr-1 inline-block h-2 w-4 rounded bg-zinc-300 align-middle [background-image:repeating-linear-gradient(45deg,transparent,transparent_3px,rgba(0,0,0,.15)_3px,rgba(0,0,0,.15)_6px)]" />
            waiting
          </span>
          <span>
            <span className="mr-1 inline-block h-2 w-4 rounded bg-emerald-500 align-middle" />
            running
          </span>
          <span>
            <span className="mr-1 inline-block h-2 w-4 rounded border-2 border-indigo-600 align-middle" />
            critical path
          </span>
          <span className="ml-auto">total {seconds(span)}</span>
        </div>
        <ol className="space-y-2">
          {timeline.steps.map((step) => {
            const waitStart = step.readyAt;
            const runStart = step.startedAt;
            const runEnd = step.endedAt ?? (runStart !== null ? span : null);
            return (
              <li key={step.index} className="grid grid-cols-[12rem_1fr] items-center gap-3 text-xs" data-critical={step.critical}>
                <div className="min-w-0">
                  <p className={`truncate font-medium ${step.critical ? "text-indigo-700 dark:text-indigo-300" : ""}`}>
                    {step.index}. {step.title}
                  </p>
                  <p className="truncate text-zinc-500">
                    {step.assignee} · <span>{STEP_STYLE[step.status as keyof typeof STEP_STYLE]?.label ?? step.status}</span> ·{" "}
                    {step.attempts} attempt(s)
                  </p>
                </div>
                <div
                  className="relative h-5 rounded bg-zinc-100 dark:bg-zinc-900"
                  title={`ready ${seconds(waitStart)}, started ${seconds(runStart)}, ended ${seconds(step.endedAt)}`}
                >
                  {waitStart !== null && runStart !== null && runStart > waitStart ? (
                    <div
                      className="absolute inset-y-1 rounded-sm bg-zinc-300 [background-image:repeating-linear-gradient(45deg,transparent,transparent_3px,rgba(0,0,0,.15)_3px,rgba(0,0,0,.15)_6px)] dark:bg-zinc-700"
                      style={{ left: pct(waitStart), width: pct(runStart - waitStart) }}
                    />
                  ) : null}
                  {runStart !== null && runEnd !== null ? (
                    <div
                      className={`absolute inset-y-0.5 rounded-sm ${BAR[step.status] ?? "bg-zinc-400"} ${step.critical ? "ring-2 ring-indigo-600 dark:ring-indigo-400" : ""}`}
                      style={{ left: pct(runStart), width: `max(3px, ${pct(runEnd - runStart)})` }}
                    />
                  ) : null}
                </div>
              </li>
            );
          })}
        </ol>
      </section>
      <section aria-label="Steps in detail" className="space-y-3">
        {timeline.steps.map((step) => (
          <details key={step.index} className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800">
            <summary className="cursor-pointer font-medium">
              {step.index}. {step.title} — {step.status} · {step.tokens.toLocaleString("en")} tokens · ${step.cost.toFixed(4)}
            </summary>
            <div className="mt-2 space-y-2">
              {step.failureReason ? <p className="text-red-600">Failure: {step.failureReason}</p> : null}
              {step.outputSummary ? <p>Summary: {step.outputSummary}</p> : null}
              {step.outputFiles.length ? <p>Files: {step.outputFiles.join(", ")}</p> : null}
              <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900">
                {step.renderedInput ?? "(not dispatched)"}
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
