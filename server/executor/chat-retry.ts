/**
 * The commander's chat reply retries a transient failure as a plan step does: a fresh
 * run (attempt + 1) of the same message, up to CHAT_MAX_ATTEMPTS. The runtime has
 * already retried inside the failed run with backoff; this is the executor's turn.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import type { AgentRunResult } from "./ports.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { createRun, type RunLaunch } from "./run-records.ts";

type Tx = Prisma.TransactionClient;

/** Runs of one chat reply in all (the first and its retries). */
export const CHAT_MAX_ATTEMPTS = 3;

/** Starts the next attempt of a chat reply that failed transiently; false when it does not retry. */
export async function retryChatReply(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { launch: RunLaunch; result: Extract<AgentRunResult, { kind: "failed" }> },
): Promise<boolean> {
  const { launch, result } = input;
  if (launch.kind !== "chat" || !result.transient || launch.attempt >= CHAT_MAX_ATTEMPTS) return false;
  await createRun(context, tx, uow, {
    id: randomUUID(),
    conversationId: launch.request.conversationId,
    agent: launch.agent,
    kind: "chat",
    input: launch.request.input,
    request: { text: launch.request.request.text, messageId: launch.triggerMessageId },
    attempt: launch.attempt + 1,
    triggerMessageId: launch.triggerMessageId,
  });
  return true;
}
