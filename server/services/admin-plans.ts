/**
 * Admin read model of plan history across all conversations, and one plan's
 * timeline: when each step became ready, started and ended, with the critical path
 * (core/critical-path.ts: the chain whose service times add up to the longest).
 * Totals are marked `usageEstimated` when any run in them was cut mid-stream and its
 * usage estimated, as the conversation's own usage lines show it with "≈".
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { PlanStatus } from "../core/types.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import { stepSegments } from "./admin-timeline.ts";
import type { PlanTimeline, TimelineStep } from "../protocol/rest/admin-views.ts";
import { criticalPath, serviceMs } from "../core/critical-path.ts";

type RunUsage = { tokensIn: number; tokensOut: number; cost: number; usageEstimated: boolean };

/** Tokens (in + out) and cost of the runs; estimated if any run's usage is. */
export function usageOf(runs: readonly RunUsage[]): { tokens: number; cost: number; usageEstimated: boolean } {
  return {
    tokens: runs.reduce((sum, run) => sum + run.tokensIn + run.tokensOut, 0),
    cost: runs.reduce((sum, run) => sum + run.cost, 0),
    usageEstimated: runs.some((run) => run.usageEstimated),
  };
}

export interface PlanHistoryFilter {
  status?: PlanStatus;
  agent?: string;
  from?: Date;
  to?: Date;
}

export async function listPlanHistory(
  prisma: PrismaClient,
  { actor, filter, take = 100 }: { actor: Actor | null; filter: PlanHistoryFilter; take?: number },
) {
  assertAdmin(actor);
  const where: Prisma.PlanWhereInput = {
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agent ? { steps: { some: { assignee: filter.agent } } } : {}),
    ...(filter.from || filter.to
      ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } }
      : {}),
  };
  const plans = await prisma.plan.findMany({
    where,
    orderBy: { createdAt: "desc" },
    take,
    include: {
      conversation: { select: { id: true, title: true } },
      steps: { select: { status: true, assignee: true } },
      runs: { select: { tokensIn: true, tokensOut: true, cost: true, usageEstimated: true } },
    },
  });
  return plans.map((plan) => ({
    id: plan.id,
    title: plan.title,
    status: plan.status,
    conversation: plan.conversation,
    createdAt: plan.createdAt.toISOString(),
    endedAt: plan.endedAt?.toISOString() ?? null,
    steps: plan.steps.length,
    doneSteps: plan.steps.filter((s) => s.status === "done").length,
    skippedSteps: plan.steps.filter((s) => s.status === "skipped").length,
    failedSteps: plan.steps.filter((s) => s.status === "failed").length,
    assignees: [...new Set(plan.steps.map((s) => s.assignee))],
    ...usageOf(plan.runs),
  }));
}

export async function getPlanTimeline(
  prisma: PrismaClient,
  { actor, planId }: { actor: Actor | null; planId: string },
): Promise<PlanTimeline | null> {
  assertAdmin(actor);
  const plan = await prisma.plan.findUnique({
    where: { id: planId },
    include: {
      conversation: { select: { id: true, title: true } },
      steps: { orderBy: { index: "asc" } },
      runs: {
        select: {
          stepId: true,
          tokensIn: true,
          tokensOut: true,
          cost: true,
          usageEstimated: true,
          startedAt: true,
          endedAt: true,
          status: true,
        },
      },
      events: { orderBy: { id: "asc" }, select: { stepIndex: true, at: true, phase: true, message: true } },
    },
  });
  if (!plan) return null;
  const forms = await prisma.form.findMany({
    where: { planId },
    select: { stepId: true, status: true, createdAt: true, answer: { select: { createdAt: true } } },
  });
  const origin = plan.createdAt.getTime();
  const offset = (date: Date | null | undefined) => (date ? date.getTime() - origin : null);
  const endOf = new Map(plan.steps.map((step) => [step.index, offset(step.endedAt)]));
  // weighted by service time, like the plan's metrics: both mark the same steps
  const serviceOf = (stepId: string) =>
    serviceMs(
      plan.runs
        .filter((run) => run.stepId === stepId && run.startedAt !== null)
        .map((run) => ({ start: run.startedAt!.getTime(), end: run.endedAt?.getTime() ?? null })),
    );
  const path = new Set(
    criticalPath(plan.steps.map((step) => ({ index: step.index, waitFor: step.waitFor, weight: serviceOf(step.id) }))).indexes,
  );
  const steps: TimelineStep[] = plan.steps.map((step) => {
    const runs = plan.runs.filter((run) => run.stepId === step.id);
    const upstreamEnds = step.waitFor.map((index) => endOf.get(index) ?? null);
    const readyAt = upstreamEnds.length === 0 ? 0 : upstreamEnds.every((end) => end !== null) ? Math.max(...upstreamEnds) : null;
    return {
      index: step.index,
      title: step.title,
      assignee: step.assignee,
      status: step.status,
      waitFor: step.waitFor,
      attempts: step.attempts,
      readyAt,
      startedAt: offset(step.startedAt),
      endedAt: offset(step.endedAt),
      renderedInput: step.renderedInput,
      outputSummary: step.outputSummary,
      outputFiles: step.outputFiles,
      failureReason: step.failureReason,
      ...usageOf(runs),
      critical: path.has(step.index),
      segments: stepSegments({
        readyAt,
        endedAt: offset(step.endedAt),
        now: offset(plan.endedAt) ?? Date.now() - origin,
        runs: runs.map((run) => ({ startedAt: offset(run.startedAt), endedAt: offset(run.endedAt), status: run.status })),
        forms: forms
          .filter((form) => form.stepId === step.id)
          .map((form) => ({ openedAt: form.createdAt.getTime() - origin, closedAt: offset(form.answer?.createdAt) })),
      }),
    };
  });
  return {
    id: plan.id,
    title: plan.title,
    status: plan.status,
    request: plan.request,
    conversation: plan.conversation,
    createdAt: plan.createdAt.toISOString(),
    endedAt: plan.endedAt?.toISOString() ?? null,
    span: Math.max(1, offset(plan.endedAt) ?? Date.now() - origin),
    // every run of the plan, its planning call (no step) included, as the plan panel counts
    ...usageOf(plan.runs),
    steps,
    log: plan.events.map((event) => ({
      stepIndex: event.stepIndex,
      at: event.at.toISOString(),
      phase: event.phase,
      message: event.message,
    })),
  };
}
