/**
 * The commander's `plan_status` tool: the facts of a plan of its conversation at this
 * moment — each step's status, attempts, summary, failure reason and execution log —
 * so it decides from what happened, not from what it remembers (no blind dispatching).
 * Bounded: long texts are clipped and only the newest log entries are returned.
 */
import { tool, zodSchema } from "ai";
import { z } from "zod";
import type { RunRequest } from "../ports/executor.ts";
import type { PlanStatusReader, PlanStatusView } from "../ports/agents.ts";
import { fenceUntrusted } from "../core/fence.ts";
import { truncateText } from "../core/text.ts";

/** Newest execution-log entries returned per step. */
export const PLAN_STATUS_LOG_ENTRIES = 20;
/** Longest text (summary, reason, log message) returned as is, in characters. */
export const PLAN_STATUS_TEXT_CHARS = 600;
/** Most steps described in one answer (the rest are counted). */
export const PLAN_STATUS_MAX_STEPS = 40;

const clip = (text: string | null): string | null => (text === null ? null : truncateText(text, PLAN_STATUS_TEXT_CHARS, { ellipsis: "…" }));

/** The view as the model receives it: bounded, and step output fenced (it is other agents' work). */
export function boundedPlanStatus(view: PlanStatusView, stepIndex?: number): unknown {
  const chosen = stepIndex === undefined ? view.steps : view.steps.filter((step) => step.index === stepIndex);
  const shown = chosen.slice(0, PLAN_STATUS_MAX_STEPS);
  return {
    plan: { id: view.id, title: view.title, status: view.status },
    steps: shown.map((step) => ({
      index: step.index,
      title: step.title,
      assignee: step.assignee,
      status: step.status,
      attempts: step.attempts,
      summary: step.summary === null ? null : fenceUntrusted(clip(step.summary) ?? "", `step_${step.index}.output_summary`),
      failure_reason: clip(step.failureReason),
      log: step.log.slice(-PLAN_STATUS_LOG_ENTRIES).map((entry) => ({ at: entry.at, phase: entry.phase, message: clip(entry.message) })),
    })),
    ...(chosen.length > shown.length ? { more_steps: chosen.length - shown.length } : {}),
  };
}

/** wrapped once: the AI SDK memoizes a wrapper's JSON schema, so it is not re-derived from zod on every commander run */
const PLAN_STATUS_INPUT = zodSchema(z.object({ plan_id: z.string().optional(), step: z.number().int().positive().optional() }));

export function createPlanStatusTool(input: { request: RunRequest; reader: PlanStatusReader }) {
  const { request, reader } = input;
  return tool({
    description:
      "Look at a plan of this conversation now: each step's status, attempts, summary, failure reason and execution log. " +
      "Without plan_id: the plan you are working on, or the conversation's newest. With step: only that step.",
    inputSchema: PLAN_STATUS_INPUT,
    execute: async ({ plan_id, step }) => {
      const planId = plan_id ?? request.step?.planId;
      const view = await reader.read({
        conversationId: request.conversationId,
        ...(planId ? { planId } : {}),
        ...(step !== undefined ? { stepIndex: step } : {}),
        logLimit: PLAN_STATUS_LOG_ENTRIES,
      });
      if (!view) throw new Error(plan_id ? `No plan ${plan_id} in this conversation.` : "This conversation has no plan yet.");
      if (step !== undefined && !view.steps.some((candidate) => candidate.index === step)) {
        throw new Error(`Plan "${view.title}" has no step ${step}. Steps: ${view.steps.map((s) => s.index).join(", ")}.`);
      }
      return boundedPlanStatus(view, step);
    },
  });
}
