/**
 * The commander's chat reply retries a transient failure as a plan step does: a fresh
 * run (attempt + 1) of the same message, up to CHAT_MAX_ATTEMPTS, after the same
 * jittered exponential backoff as a step (core/failure-policy.ts). The runtime has
 * already retried inside the failed run; this is the executor's turn.
 *
 * Durable like a step's retryAt: the retry is a queued Run row whose `notBefore` keeps
 * every worker from claiming it early (baton_claim_runs). The process that created it
 * sets a timer to claim it when due; if that process dies, the sweep's claim (every
 * sweepMs) or the next start-up's claims it — nothing lives only in memory.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { retryDelayMs } from "../core/failure-policy.ts";
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
    // the failed attempt's number is the failure count: 1st retry ~0.25-0.5 s, 2nd ~0.5-1 s, …
    notBefore: new Date(context.clock.now() + retryDelayMs(launch.attempt, context.random)),
  });
  return true;
}
