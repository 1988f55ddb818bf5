/**
 * Messages the executor writes. The DTO is built from what is already known instead
 * of reading the row back: executor messages carry no attachments.
 */
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import type { MentionDTO, MessageDTO } from "../protocol/dto.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

export interface NewMessage {
  conversationId: string;
  author: { kind: "agent"; agent: Agent } | { kind: "system" };
  kind: MessageDTO["kind"];
  body: string;
  mentions?: MentionDTO[];
  planId?: string | null;
  stepId?: string | null;
  runId?: string | null;
  formId?: string | null;
}

export async function insertMessage(tx: Tx, uow: UnitOfWork, input: NewMessage): Promise<MessageDTO> {
  const agent = input.author.kind === "agent" ? input.author.agent : null;
  const row = await tx.message.create({
    data: {
      conversationId: input.conversationId,
      authorKind: input.author.kind,
      authorAgentId: agent?.id,
      kind: input.kind,
      body: input.body,
      mentions: (input.mentions ?? []) as unknown as Prisma.InputJsonValue,
      planId: input.planId ?? null,
      stepId: input.stepId ?? null,
      runId: input.runId ?? null,
      formId: input.formId ?? null,
    },
    select: { id: true, createdAt: true },
  });
  const message: MessageDTO = {
    id: row.id,
    conversationId: input.conversationId,
    authorKind: input.author.kind,
    author: agent ? { id: agent.id, name: agent.name, handle: agent.handle, role: agent.role } : null,
    kind: input.kind,
    body: input.body,
    mentions: input.mentions ?? [],
    planId: input.planId ?? null,
    stepId: input.stepId ?? null,
    runId: input.runId ?? null,
    formId: input.formId ?? null,
    attachments: [],
    createdAt: row.createdAt.toISOString(),
  };
  uow.emit("message-created", { message });
  return message;
}
