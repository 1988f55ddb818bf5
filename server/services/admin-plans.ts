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
import { planPhaseNote, stepPhase, stepSegments } from "./admin-timeline.ts";
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
  /** words in the plan's title, case-insensitive */
  title?: string;
  /** only this conversation's plans (the conversation header links here) */
  conversationId?: string;
  status?: PlanStatus;
  agent?: string;
  from?: Date;
  to?: Date;
}

const PLAN_HISTORY_PAGE_SIZE = 50;

/**
 * One page of plans, newest first; `after` is the last plan id of the previous page
 * and `next` the one to pass for the page after this (null: no more).
 */
export async function listPlanHistory(
  prisma: PrismaClient,
  {
    actor,
    filter,
    after,
    take = PLAN_HISTORY_PAGE_SIZE,
  }: { actor: Actor | null; filter: PlanHistoryFilter; after?: string; take?: number },
) {
  assertAdmin(actor);
  const title = filter.title?.trim();
  const where: Prisma.PlanWhereInput = {
    ...(title ? { title: { contains: title, mode: "insensitive" } } : {}),
    ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.agent ? { steps: { some: { assignee: filter.agent } } } : {}),
    ...(filter.from || filter.to
      ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } }
      : {}),
  };
  const found = await prisma.plan.findMany({
    where,
    // the id breaks ties between plans created in the same millisecond, so pages never overlap
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...(after ? { cursor: { id: after }, skip: 1 } : {}),
    take: take + 1,
    include: {
      conversation: { select: { id: true, title: true } },
      steps: { select: { status: true, assignee: true } },
      runs: { select: { tokensIn: true, tokensOut: true, cost: true, usageEstimated: true } },
    },
  });
  const plans = found.slice(0, take);
  const next = found.length > take ? plans.at(-1)!.id : null;
  const rows = plans.map((plan) => ({
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
  return { plans: rows, next };
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
          kind: true,
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
      phase: stepPhase(step),
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
        decisionPending: step.decisionPending && plan.endedAt === null,
        runs: runs.map((run) => ({
          startedAt: offset(run.startedAt),
          endedAt: offset(run.endedAt),
          status: run.status,
          kind: run.kind,
        })),
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
    phaseNote: plan.endedAt === null ? planPhaseNote(steps) : null,
    log: plan.events.map((event) => ({
      stepIndex: event.stepIndex,
      at: event.at.toISOString(),
      phase: event.phase,
      message: event.message,
    })),
  };
}
