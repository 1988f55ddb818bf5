"use client";
import { useCallback, useMemo, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import type { PlanDTO } from "@/server/protocol/dto.ts";
import type { SnapshotPlan } from "@/server/protocol/rest/conversations.ts";
import { api } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { PlanGraph } from "./plan-graph.tsx";
import { PlanWorkspace } from "./plan-workspace.tsx";
import { StepDrawer } from "./step-drawer.tsx";
import { UsageLine } from "./usage-line.tsx";
import { PLAN_TONE, stepTally } from "./step-status.ts";
import { usePlanSteps } from "./use-plan-steps.ts";
import { useErrorText } from "../error-text.ts";

/** The plan's steps are here (the snapshot leaves an ended plan's out until someone opens it). */
const hasSteps = (plan: SnapshotPlan): plan is PlanDTO => plan.steps !== null;

/** The conversation's plans, newest first by default; the chosen one drawn as a live DAG. */
export function PlanPanel({ conversationId }: { conversationId: string }) {
  const t = useTranslations("plan");
  const plansById = useConversationStore((s) => s.plans);
  const plans = useMemo(() => Object.values(plansById).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)), [plansById]);
  const [chosenId, setChosenId] = useState<string | null>(null);
  const [openStep, setOpenStep] = useState<number | null>(null);
  const plan = plans.find((p) => p.id === chosenId) ?? plans[0];
  const onOpenStep = useCallback((index: number) => setOpenStep(index), []);
  const panel = useRef<HTMLDivElement>(null);
  // closing the drawer hands focus back to the step it was opened from
  const onCloseStep = useCallback(() => {
    const index = openStep;
    setOpenStep(null);
    requestAnimationFrame(() =>
      panel.current?.querySelector<HTMLElement>(`[data-testid="plan-step"][data-index="${index}"] button`)?.focus({ preventScroll: true }),
    );
  }, [openStep]);
  const steps = usePlanSteps(conversationId, plan);
  const choose = useCallback((planId: string) => {
    setChosenId(planId);
    setOpenStep(null);
  }, []);

  if (!plan) {
    return (
      <div className="p-4 text-sm text-zinc-500" data-testid="plan-panel-empty">
        {t("empty")}
      </div>
    );
  }

  return (
    <div ref={panel} className="flex min-h-0 flex-1 flex-col" data-testid="plan-panel" data-plan-status={plan.status}>
      <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        {plans.length > 1 ? (
          <select
            aria-label={t("choose")}
            value={plan.id}
            onChange={(event) => choose(event.target.value)}
            className="min-w-0 flex-1 truncate rounded border border-zinc-300 bg-transparent px-1 py-1 text-sm dark:border-zinc-700"
          >
            {plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.rerunOfId ? t("rerunOption", { title: p.title }) : p.title}
              </option>
            ))}
          </select>
        ) : (
          <h2 className="min-w-0 flex-1 break-words text-sm font-semibold">{plan.title}</h2>
        )}
        <Badge tone={PLAN_TONE[plan.status] ?? "neutral"}>
          <span data-testid="plan-status" role="status" aria-label={t("statusLabel")} title={t(`statusHint.${plan.status}`)}>
            {t(`status.${plan.status}`)}
          </span>
        </Badge>
        <UsageLine planId={plan.id} />
        <PlanControls conversationId={conversationId} plan={plan} onRerun={choose} />
        <RerunLinks plan={plan} plans={plans} onChoose={choose} />
      </div>
      {hasSteps(plan) ? (
        <>
          <PlanProgress plan={plan} />
          <PlanWorkspace key={plan.id} conversationId={conversationId} plan={plan} />
          <div className="min-h-0 flex-1 overflow-y-auto">
            <PlanGraph plan={plan} onOpenStep={onOpenStep} />
          </div>
          {openStep !== null ? <StepDrawer conversationId={conversationId} plan={plan} stepIndex={openStep} onClose={onCloseStep} /> : null}
        </>
      ) : steps.failed ? (
        <p role="alert" className="px-3 py-2 text-sm text-red-700 dark:text-red-400" data-testid="plan-steps-failed">
          {t("stepsFailed", { reason: steps.failed })}{" "}
          <button type="button" onClick={steps.retry} className="underline">
            {t("tryAgain")}
          </button>
        </p>
      ) : (
        <p role="status" className="px-3 py-2 text-sm text-zinc-500" data-testid="plan-steps-loading">
          {t("stepsLoading")}
        </p>
      )}
    </div>
  );
}

/**
 * How far the plan got, by how its steps ended: done is green; skipped and failed
 * are shown as such, so a plan of skipped steps never looks like a full green bar.
 */
function PlanProgress({ plan }: { plan: PlanDTO }) {
  const t = useTranslations("plan");
  const tally = stepTally(plan.steps);
  const ended = tally.done + tally.skipped + tally.failed;
  const width = (count: number) => `${(count / Math.max(1, tally.total)) * 100}%`;
  const missing = [tally.skipped ? t("skipped", { count: tally.skipped }) : "", tally.failed ? t("failed", { count: tally.failed }) : ""]
    .filter(Boolean)
    .join(t("listSeparator"));
  return (
    <div className="px-3 py-1.5 text-xs text-zinc-500" data-testid="plan-progress">
      {t("progress", { done: tally.done, total: tally.total })}
      {missing ? ` · ${missing}` : ""} · {t("parallel", { count: plan.maxParallel })}
      <div
        className="mt-1 flex h-1 w-full overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
        role="progressbar"
        aria-label={t("progressLabel")}
        aria-valuemin={0}
        aria-valuemax={tally.total}
        aria-valuenow={ended}
        aria-valuetext={
          missing
            ? t("progressValueMissing", { done: tally.done, total: tally.total, missing })
            : t("progressValue", { done: tally.done, total: tally.total })
        }
      >
        <div className="h-full bg-emerald-500 transition-all" style={{ width: width(tally.done) }} />
        <div
          className="h-full bg-zinc-400 transition-all dark:bg-zinc-600"
          style={{ width: width(tally.skipped) }}
          data-testid="progress-skipped"
        />
        <div className="h-full bg-red-500 transition-all" style={{ width: width(tally.failed) }} data-testid="progress-failed" />
      </div>
    </div>
  );
}

/**
 * Stop the plan while it runs (Stop beside one step, in its drawer, stops that step
 * only); once it ended, re-run it as a new plan, which the panel then shows.
 */
function PlanControls({
  conversationId,
  plan,
  onRerun,
}: {
  conversationId: string;
  plan: Pick<PlanDTO, "id" | "title" | "status">;
  onRerun: (planId: string) => void;
}) {
  const t = useTranslations("plan");
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const live = plan.status === "running" || plan.status === "paused";
  const rerun = async () => {
    setBusy(true);
    setError("");
    try {
      const result = await api.conversations.controlPlan({ conversationId, planId: plan.id }, { action: "rerun" });
      onRerun(result.plan.id);
    } catch (caught) {
      setError(errorText(caught, t("rerunFailed")));
    } finally {
      setBusy(false);
    }
  };
  const cancel = async () => {
    if (!window.confirm(t("confirmCancel", { title: plan.title }))) return;
    setBusy(true);
    setError("");
    try {
      await api.conversations.controlPlan({ conversationId, planId: plan.id }, { action: "cancel" });
    } catch (caught) {
      setError(errorText(caught, t("cancelFailed")));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {live ? (
        <Button variant="secondary" size="sm" onClick={cancel} disabled={busy}>
          {t("cancel")}
        </Button>
      ) : (
        <Button variant="secondary" size="sm" onClick={rerun} disabled={busy} title={t("rerunHint")}>
          {t("rerun")}
        </Button>
      )}
      {error ? (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** A re-run and the plan it re-ran point to each other: one click shows the other. */
function RerunLinks({
  plan,
  plans,
  onChoose,
}: {
  plan: Pick<PlanDTO, "id" | "rerunOfId">;
  plans: readonly Pick<PlanDTO, "id" | "title" | "rerunOfId">[];
  onChoose: (planId: string) => void;
}) {
  const t = useTranslations("plan");
  const original = plan.rerunOfId ? plans.find((candidate) => candidate.id === plan.rerunOfId) : undefined;
  const reruns = plans.filter((candidate) => candidate.rerunOfId === plan.id);
  if (!original && reruns.length === 0) return null;
  const link = (target: Pick<PlanDTO, "id" | "title">, label: string, testId: string) => (
    <button
      key={target.id}
      type="button"
      data-testid={testId}
      onClick={() => onChoose(target.id)}
      className="rounded underline decoration-dotted underline-offset-2 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-accent dark:hover:text-zinc-100"
    >
      {label}
    </button>
  );
  return (
    <p className="flex w-full flex-wrap gap-x-3 text-xs text-zinc-600 dark:text-zinc-400" data-testid="rerun-links">
      {original ? link(original, t("rerunOf"), "rerun-of") : null}
      {reruns.map((rerun, i) => link(rerun, t("rerunAs", { count: reruns.length, n: i + 1 }), "rerun-as"))}
    </p>
  );
}
