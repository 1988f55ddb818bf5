/**
 * The commander's decision about a failed step (an `ask_commander` step) escalates like
 * a step or a reply (issue 45): a decision run that fails for a reason a stronger model
 * could fix (malformed `decide` arguments twice, a content-filter refusal) runs once more
 * at once on the commander's escalation model, if it names one; never a second time.
 * Without the escalation, the failed decision aborts the plan (core/run-outcome.ts).
 *
 * The plan is not told: its step still waits for a decision (`decisionPending`), which
 * the escalated run gives.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import type { AgentRunResult } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { createRun, type RunLaunch } from "./run-records.ts";
import { storedRequest } from "./run-queue.ts";
import { escalationAfter, escalationNote } from "./run-model-choice.ts";

type Tx = Prisma.TransactionClient;

/** Queues the one escalated run of a decision that failed fixably; false when it does not escalate. */
export async function escalateDecision(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  { launch, result }: { launch: RunLaunch; result: Extract<AgentRunResult, { kind: "failed" }> },
): Promise<boolean> {
  const { purpose, step } = launch.request;
  if (launch.kind !== "decision" || purpose.kind !== "commander-decision" || result.cause === undefined) return false;
  if (launch.planId === null || launch.stepId === null || !step) return false;
  const model = escalationAfter(launch, result.cause);
  if (model === null) return false;
  const runId = randomUUID();
  uow.log({
    planId: launch.planId,
    stepIndex: step.stepIndex,
    runId,
    phase: "model",
    message: `the commander's decision ${escalationNote(result.cause, model)}`,
    data: { model, reason: "escalation" },
  });
  await createRun(context, tx, uow, {
    id: runId,
    conversationId: launch.request.conversationId,
    agent: { ...launch.agent, model },
    modelReason: "escalation",
    kind: "decision",
    input: launch.request.input,
    // the plan's request and the message whose attachments travel with it, as a decision's first run had them
    request: await storedRequest(tx, { planId: launch.planId, triggerMessageId: launch.triggerMessageId, input: launch.request.input }),
    plan: { planId: launch.planId, stepId: launch.stepId, stepIndex: step.stepIndex, stepTitle: step.title },
    failedStep: purpose.failedStep,
    attempt: launch.attempt + 1,
    triggerMessageId: launch.triggerMessageId,
  });
  return true;
}
