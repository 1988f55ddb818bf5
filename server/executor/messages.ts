/**
 * Messages the executor writes. The DTO is built from what is already known instead
 * of reading the row back: executor messages carry no attachments.
 */
import { randomUUID } from "node:crypto";
import type { Agent } from "../generated/prisma/client.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import type { MentionDTO, MessageDTO } from "../protocol/dto.ts";
import { messageDTO } from "../protocol/dto-builders.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { toStorableJson, toStorableText } from "../core/text.ts";
import type { Notice } from "../core/notices.ts";

export interface NewMessage {
  conversationId: string;
  author: { kind: "agent"; agent: Agent } | { kind: "system" };
  kind: MessageDTO["kind"];
  body: string;
  /** the body as data, when the server wrote it (core/notices.ts): worded in each reader's language */
  notice?: Notice | null;
  mentions?: MentionDTO[];
  planId?: string | null;
  stepId?: string | null;
  runId?: string | null;
  formId?: string | null;
}

/** Queues the message in the transaction's write batch and emits its event. */
export function insertMessage(context: ExecutorContext, uow: UnitOfWork, input: NewMessage): MessageDTO {
  const agent = input.author.kind === "agent" ? input.author.agent : null;
  const row = {
    id: randomUUID(),
    conversationId: input.conversationId,
    authorKind: input.author.kind,
    kind: input.kind,
    // agent output and webhook payloads: stored as text PostgreSQL accepts
    body: toStorableText(input.body),
    // its values quote names, titles and reasons from outside as well; left out of the
    // statement's document when there is none, so the column is NULL (not JSON null)
    notice: input.notice ? toStorableJson(input.notice) : undefined,
    mentions: input.mentions ?? [],
    planId: input.planId ?? null,
    stepId: input.stepId ?? null,
    runId: input.runId ?? null,
    formId: input.formId ?? null,
  };
  const createdAt = context.stamp();
  uow.batch.add(sqlWrites.insertMessage({ ...row, authorAgentId: agent?.id ?? null, createdAt }));
  const message = messageDTO({ ...row, createdAt, authorAgent: agent, authorUser: null, attachments: [] });
  uow.emit("message-created", { message });
  return message;
}
