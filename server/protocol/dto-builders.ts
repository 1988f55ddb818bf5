/**
 * The one place a MessageDTO and a RunDTO are put together. Whoever holds the facts
 * (a database row in adapters/prisma/serializers.ts, a message or run the executor
 * has just written and not read back) hands them here, so every path that emits one
 * — REST responses, replayed events, live events — gives the same shape.
 */
import { runKindOf } from "../core/types.ts";
import { modelReasonOf } from "../core/run-model.ts";
import type { ReactionDTO } from "./reactions.ts";
import { readNotice } from "./notices.ts";
import type { AgentRole, AttachmentDTO, MentionDTO, MessageDTO, RunDTO, RunStatus } from "./dto.ts";

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export interface MessageFacts {
  id: string;
  conversationId: string;
  authorKind: MessageDTO["authorKind"];
  kind: MessageDTO["kind"];
  body: string;
  /** a row's JSON column or a notice just written (absent: none) */
  notice?: unknown;
  mentions: MentionDTO[];
  planId: string | null;
  stepId: string | null;
  runId: string | null;
  formId: string | null;
  createdAt: Date;
  /** the author changed the body after sending it (absent: never) */
  editedAt?: Date | null;
  /** the author deleted it (absent: never); its attachments are no longer shown */
  deletedAt?: Date | null;
  /** the agent or person who wrote it; null for the system */
  authorAgent: { id: string; name: string; handle: string; role: AgentRole } | null;
  authorUser: { id: string; name: string } | null;
  attachments: AttachmentDTO[];
  /** people's reactions (absent: none yet, as for a message just written) */
  reactions?: ReactionDTO[];
}

export function messageDTO(facts: MessageFacts): MessageDTO {
  const { authorAgent, authorUser } = facts;
  return {
    id: facts.id,
    conversationId: facts.conversationId,
    authorKind: facts.authorKind,
    author: authorAgent
      ? { id: authorAgent.id, name: authorAgent.name, handle: authorAgent.handle, role: authorAgent.role }
      : authorUser
        ? { id: authorUser.id, name: authorUser.name }
        : null,
    kind: facts.kind,
    body: facts.body,
    notice: facts.deletedAt ? null : readNotice(facts.notice),
    mentions: facts.mentions,
    planId: facts.planId,
    stepId: facts.stepId,
    runId: facts.runId,
    formId: facts.formId,
    attachments: facts.deletedAt ? [] : facts.attachments,
    createdAt: facts.createdAt.toISOString(),
    editedAt: iso(facts.editedAt),
    deletedAt: iso(facts.deletedAt),
    reactions: facts.deletedAt ? [] : (facts.reactions ?? []),
  };
}

export interface RunFacts {
  id: string;
  conversationId: string;
  agentHandle: string | null;
  planId: string | null;
  stepIndex: number | null;
  /** a RunKind; the column holds text, so a row's is checked here */
  kind: string;
  attempt: number;
  status: RunStatus;
  model: string;
  /** a ModelReason; the column holds text, so a row's is checked here */
  modelReason?: string;
  startedAt: Date | null;
  endedAt: Date | null;
  error: string | null;
  /** null while nothing was counted (a run still queued or running) */
  usage: { tokensIn: number; tokensOut: number; cost: number; estimated?: boolean } | null;
}

export function runDTO(facts: RunFacts): RunDTO {
  return {
    id: facts.id,
    conversationId: facts.conversationId,
    agentHandle: facts.agentHandle,
    planId: facts.planId,
    stepIndex: facts.stepIndex,
    kind: runKindOf(facts),
    attempt: facts.attempt,
    status: facts.status,
    model: facts.model,
    modelReason: modelReasonOf(facts.modelReason ?? "agent"),
    startedAt: iso(facts.startedAt),
    endedAt: iso(facts.endedAt),
    error: facts.error,
    tokensIn: facts.usage?.tokensIn ?? 0,
    tokensOut: facts.usage?.tokensOut ?? 0,
    cost: facts.usage?.cost ?? 0,
    usageEstimated: facts.usage?.estimated === true,
  };
}
