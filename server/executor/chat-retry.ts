/**
 * A reply to a message (the commander's chat reply, an agent's answer to a mention)
 * retries a transient failure as a plan step does, by the core's one retry policy
 * (core/retry-policy.ts): a fresh run (attempt + 1) of the same message, up to
 * REPLY_MAX_ATTEMPTS runs, after the step backoff or the provider's longer Retry-After.
 * Only the first run retried in place, so a reply makes at most
 * maxProviderCalls(REPLY_MAX_ATTEMPTS - 1) provider calls.
 *
 * Durable like a step's retryAt: the retry is a queued Run row whose `notBefore` keeps
 * every worker from claiming it early (baton_claim_runs). The process that created it
 * sets a timer to claim it when due; if that process dies, the sweep's claim (every
 * sweepMs) or the next start-up's claims it — nothing lives only in memory.
 *
 * A reply that failed for a reason a stronger model could fix (its plan rejected too
 * often, malformed tool calls, a refusal) instead runs once more at once on the agent's
 * escalation model (core/run-model.ts), as a step would; never a second time.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { decideDurable, describeWait, type DurableVerdict } from "../core/retry-policy.ts";
import type { RunKind } from "../core/types.ts";
import { createRun, type NewRun, type RunLaunch } from "./run-records.ts";
import { escalationAfter } from "./run-model-choice.ts";

type Tx = Prisma.TransactionClient;

/** Runs of one reply in all (the first and its retries). */
export const REPLY_MAX_ATTEMPTS = 3;

/** The runs that answer a message, and so retry like a step. */
const REPLY_KINDS: ReadonlySet<RunKind> = new Set(["chat", "mention"]);

type FailedResult = Extract<AgentRunResult, { kind: "failed" }>;

/** What the durable retry does about a failed run; null when the run is no reply or its failure no transient one. */
function replyVerdict(context: ExecutorContext, launch: RunLaunch, result: FailedResult): DurableVerdict | null {
  if (!REPLY_KINDS.has(launch.kind) || !result.transient || launch.triggerMessageId === null) return null;
  return decideDurable({
    failuresBefore: launch.attempt - 1,
    maxRetries: REPLY_MAX_ATTEMPTS - 1,
    retryAfterMs: result.retryAfterMs ?? null,
    random: context.random,
  });
}

/**
 * The result to record for a reply whose transient failure sticks: its reason says how
 * many attempts there were and the time since the first began. Any other result as is.
 */
export async function withReplyHistory(
  context: ExecutorContext,
  tx: Tx,
  launch: RunLaunch,
  result: AgentRunResult,
): Promise<AgentRunResult> {
  if (result.kind !== "failed" || launch.attempt <= 1 || replyVerdict(context, launch, result)?.kind !== "fail") return result;
  const first = await tx.run.findFirst({
    where: { triggerMessageId: launch.triggerMessageId, kind: launch.kind, attempt: 1 },
    select: { createdAt: true },
  });
  const spent = first ? ` over ${describeWait(context.clock.now() - first.createdAt.getTime())}` : "";
  return { ...result, reason: `${result.reason} (${launch.attempt} attempts${spent})` };
}

/** Starts the next attempt of a reply that failed transiently; false when it does not retry. */
export async function retryReply(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { launch: RunLaunch; result: FailedResult },
): Promise<boolean> {
  const { launch, result } = input;
  if (await escalateReply(context, tx, uow, input)) return true;
  const verdict = replyVerdict(context, launch, result);
  if (verdict === null || verdict.kind === "fail") return false;
  // 1st retry ~0.25-0.5 s, 2nd ~0.5-1 s, … or as long as the provider asked
  await queueNextAttempt(context, tx, uow, launch, { agent: launch.agent, notBefore: new Date(context.clock.now() + verdict.delayMs) });
  return true;
}

/** The reply's next run: the same message and input, attempt + 1, on `agent` (its model). */
function queueNextAttempt(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  launch: RunLaunch,
  next: Pick<NewRun, "agent" | "modelReason" | "notBefore">,
): Promise<RunLaunch> {
  return createRun(context, tx, uow, {
    id: randomUUID(),
    conversationId: launch.request.conversationId,
    kind: launch.kind,
    input: launch.request.input,
    request: { text: launch.request.request.text, messageId: launch.triggerMessageId },
    attempt: launch.attempt + 1,
    triggerMessageId: launch.triggerMessageId,
    ...next,
  });
}

/** The one run on the escalation model of a reply whose failure a stronger model could fix; false when none. */
async function escalateReply(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  { launch, result }: { launch: RunLaunch; result: FailedResult },
): Promise<boolean> {
  if (!REPLY_KINDS.has(launch.kind) || launch.triggerMessageId === null) return false;
  const model = escalationAfter(launch, result.cause);
  if (model === null) return false;
  await queueNextAttempt(context, tx, uow, launch, { agent: { ...launch.agent, model }, modelReason: "escalation" });
  return true;
}
