/**
 * Database rows → wire DTOs. One place, so REST responses, replayed events and
 * live events always have the same shape.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { FormDTO, MessageDTO, PlanDTO, RunDTO, StepDTO, MentionDTO } from "../../protocol/dto.ts";
import type { FormSpec, StepState } from "../../core/types.ts";
import { toStepState } from "./tables.ts";
import { messageDTO, runDTO, type MessageFacts } from "../../protocol/dto-builders.ts";
import { summarizeReactions } from "../../protocol/reactions.ts";

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export const messageInclude = {
  authorUser: { select: { id: true, name: true } },
  authorAgent: { select: { id: true, name: true, handle: true, role: true } },
  attachments: { select: { id: true, name: true, mediaType: true, size: true, untrusted: true } },
  reactions: { select: { emoji: true, userId: true, user: { select: { name: true } } }, orderBy: { createdAt: "asc" } },
} satisfies Prisma.MessageInclude;

export type MessageRow = Prisma.MessageGetPayload<{ include: typeof messageInclude }>;

export function toMessageDTO(row: MessageRow): MessageDTO {
  return messageDTO({
    ...row,
    authorAgent: row.authorAgent ?? deletedAuthorAgent(row),
    mentions: (row.mentions as unknown as MentionDTO[]) ?? [],
    reactions: summarizeReactions(row.reactions.map((reaction) => ({ ...reaction, userName: reaction.user.name }))),
  });
}

/**
 * The author of an agent's message whose agent an admin deleted: the name and handle
 * written at deletion (services/admin-agents.ts). The id only has to keep that author's
 * messages grouped together; the commander cannot be deleted, so it was a sub-agent.
 */
function deletedAuthorAgent(row: Pick<MessageRow, "authorAgentName" | "authorAgentHandle">): MessageFacts["authorAgent"] {
  if (row.authorAgentName === null || row.authorAgentHandle === null) return null;
  return { id: `deleted-agent:${row.authorAgentHandle}`, name: row.authorAgentName, handle: row.authorAgentHandle, role: "sub_agent" };
}

/** A step as the core holds it → the wire; the one place a StepDTO is built. */
export function stepStateDTO(step: StepState, id: string): StepDTO {
  const at = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString());
  return {
    id,
    index: step.index,
    title: step.title,
    assignee: step.assignee,
    input: step.input,
    waitFor: step.waitFor,
    optionalWaitFor: step.optionalWaitFor,
    quorum: step.quorum,
    forEach: step.forEach ? { ...step.forEach, children: step.expansion?.children ?? [] } : null,
    parentIndex: step.parentIndex,
    onFailure: step.onFailure,
    maxRetries: step.maxRetries,
    status: step.status,
    attempts: step.attempts,
    transientFailures: step.transientFailures,
    renderedInput: step.renderedInput,
    outputSummary: step.outputSummary,
    outputFiles: step.outputFiles,
    failureReason: step.failureReason,
    decisionPending: step.decisionPending,
    retryAt: at(step.retryAt),
    startedAt: at(step.startedAt),
    endedAt: at(step.endedAt),
    hedge: step.hedgeModel === null ? null : { model: step.hedgeModel, racing: step.hedgeRunId !== null },
    ...(step.effort === undefined ? {} : { effort: step.effort }),
    escalation:
      step.escalatedAttempt === null || step.escalationCause === null
        ? null
        : { attempt: step.escalatedAttempt, cause: step.escalationCause },
  };
}

export function toStepDTO(row: Prisma.PlanStepGetPayload<object>): StepDTO {
  return stepStateDTO(toStepState(row), row.id);
}

export function toPlanDTO(row: Prisma.PlanGetPayload<{ include: { steps: true } }>): PlanDTO {
  return {
    id: row.id,
    conversationId: row.conversationId,
    title: row.title,
    status: row.status,
    maxParallel: row.maxParallel,
    request: row.request,
    rerunOfId: row.rerunOfId,
    createdAt: row.createdAt.toISOString(),
    endedAt: iso(row.endedAt),
    steps: [...row.steps].sort((a, b) => a.index - b.index).map(toStepDTO),
  };
}

export function toRunDTO(row: Prisma.RunGetPayload<object>, context: { agentHandle: string | null; stepIndex: number | null }): RunDTO {
  return runDTO({ ...row, ...context, usage: { ...row, estimated: row.usageEstimated } });
}

export const formInclude = {
  answer: { include: { user: { select: { id: true, name: true } } } },
} satisfies Prisma.FormInclude;

export function toFormDTO(row: Prisma.FormGetPayload<{ include: typeof formInclude }>, stepIndex: number | null): FormDTO {
  return {
    id: row.id,
    conversationId: row.conversationId,
    planId: row.planId,
    stepIndex,
    spec: { title: row.title, fields: row.fields as unknown as FormSpec["fields"] },
    status: row.status,
    answer: row.answer
      ? {
          by: { id: row.answer.user.id, name: row.answer.user.name },
          values: row.answer.values as Record<string, unknown>,
          at: row.answer.createdAt.toISOString(),
        }
      : null,
  };
}
