/**
 * Database rows → wire DTOs. One place, so REST responses, replayed events and
 * live events always have the same shape.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { FormDTO, MessageDTO, PlanDTO, RunDTO, StepDTO, MentionDTO } from "../../protocol/dto.ts";
import type { FormSpec } from "../../core/types.ts";

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export const messageInclude = {
  authorUser: { select: { id: true, name: true } },
  authorAgent: { select: { id: true, name: true, handle: true, role: true } },
  attachments: { select: { id: true, name: true, mediaType: true, size: true, untrusted: true } },
} satisfies Prisma.MessageInclude;

export type MessageRow = Prisma.MessageGetPayload<{ include: typeof messageInclude }>;

export function toMessageDTO(row: MessageRow): MessageDTO {
  const author = row.authorAgent
    ? { id: row.authorAgent.id, name: row.authorAgent.name, handle: row.authorAgent.handle, role: row.authorAgent.role }
    : row.authorUser
      ? { id: row.authorUser.id, name: row.authorUser.name }
      : null;
  return {
    id: row.id,
    conversationId: row.conversationId,
    authorKind: row.authorKind,
    author,
    kind: row.kind,
    body: row.body,
    mentions: (row.mentions as unknown as MentionDTO[]) ?? [],
    planId: row.planId,
    stepId: row.stepId,
    runId: row.runId,
    formId: row.formId,
    attachments: row.attachments,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toStepDTO(row: Prisma.PlanStepGetPayload<object>): StepDTO {
  return {
    id: row.id,
    index: row.index,
    title: row.title,
    assignee: row.assignee,
    input: row.input,
    waitFor: row.waitFor,
    optionalWaitFor: row.optionalWaitFor,
    quorum: row.quorum,
    forEach:
      row.forEachFrom === null
        ? null
        : {
            from: row.forEachFrom,
            field: row.forEachField as "output_files" | "output_lines",
            maxParallel: row.forEachMaxParallel,
            children: ((row.expansion as { children?: number[] } | null)?.children ?? []).slice(),
          },
    parentIndex: row.parentIndex,
    onFailure: row.onFailure,
    maxRetries: row.maxRetries,
    status: row.status,
    attempts: row.attempts,
    renderedInput: row.renderedInput,
    outputSummary: row.outputSummary,
    outputFiles: row.outputFiles,
    failureReason: row.failureReason,
    decisionPending: row.decisionPending,
    retryAt: iso(row.retryAt),
    startedAt: iso(row.startedAt),
    endedAt: iso(row.endedAt),
  };
}

export function toPlanDTO(row: Prisma.PlanGetPayload<{ include: { steps: true } }>): PlanDTO {
  return {
    id: row.id,
    conversationId: row.conversationId,
    title: row.title,
    status: row.status,
    maxParallel: row.maxParallel,
    request: row.request,
    createdAt: row.createdAt.toISOString(),
    endedAt: iso(row.endedAt),
    steps: [...row.steps].sort((a, b) => a.index - b.index).map(toStepDTO),
  };
}

export function toRunDTO(
  row: Prisma.RunGetPayload<object>,
  context: { agentHandle: string | null; stepIndex: number | null },
): RunDTO {
  return {
    id: row.id,
    conversationId: row.conversationId,
    agentHandle: context.agentHandle,
    planId: row.planId,
    stepIndex: context.stepIndex,
    kind: row.kind,
    attempt: row.attempt,
    status: row.status,
    model: row.model,
    startedAt: iso(row.startedAt),
    endedAt: iso(row.endedAt),
    error: row.error,
    tokensIn: row.tokensIn,
    tokensOut: row.tokensOut,
    cost: row.cost,
  };
}

export const formInclude = {
  answer: { include: { user: { select: { id: true, name: true } } } },
} satisfies Prisma.FormInclude;

export function toFormDTO(
  row: Prisma.FormGetPayload<{ include: typeof formInclude }>,
  stepIndex: number | null,
): FormDTO {
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
