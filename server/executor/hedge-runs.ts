/**
 * Carrying out the core's hedging decisions (core/hedge.ts) inside a unit: the twin
 * run is queued like any run of the step — recorded before its model request is sent,
 * claimed through the pools, taken over or declared lost like any run — but on the
 * agent's alternate model and without a dispatch message (it is the same step, asked
 * again). A loser is cancelled like any run; its execution log says why.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { LOST_HEDGE } from "../core/hedge.ts";
import { COMMANDER_ASSIGNEE, type PlanCommand } from "../core/types.ts";
import type { LoadedPlan } from "../adapters/prisma/plan-repository.ts";
import type { ExecutorContext } from "./context.ts";
import { createRun } from "./run-records.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

/** Queues the twin run the core decided on, on `command.model`. */
export async function startHedgeRun(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { plan: LoadedPlan; command: Extract<PlanCommand, { type: "hedge" }> },
): Promise<void> {
  const { plan, command } = input;
  const step = plan.state.steps.find((candidate) => candidate.index === command.stepIndex);
  const stepId = plan.stepIds.get(command.stepIndex);
  if (!step || !stepId) throw new Error(`hedge of step ${command.stepIndex}: plan ${plan.state.id} has no such step`);
  const isCommander = command.assignee === COMMANDER_ASSIGNEE;
  const agent = isCommander
    ? await context.agents.commanderFor(tx, plan.conversationId)
    : await context.agents.byHandle(tx, command.assignee);
  if (!agent) throw new Error(`hedge of step ${command.stepIndex}: agent @${command.assignee} no longer exists`);
  uow.log({
    planId: plan.state.id,
    stepIndex: command.stepIndex,
    runId: command.runId,
    phase: "hedge",
    message: `run ${command.primaryRunId} runs long: hedged on ${command.model}`,
    data: { primaryRunId: command.primaryRunId, model: command.model },
  });
  await createRun(context, tx, uow, {
    id: command.runId,
    conversationId: plan.conversationId,
    // the run row, its launch and its DTO all name the alternate model
    agent: { ...agent, model: command.model },
    modelReason: "hedge",
    kind: isCommander ? "commander-step" : "step",
    input: command.renderedInput,
    request: { text: plan.state.request, messageId: plan.requestMessageId },
    plan: { planId: plan.state.id, stepId, stepIndex: command.stepIndex, stepTitle: step.title },
    attempt: command.attempt,
  });
}

/** A run cancelled because its twin finished first: say so, and have its spending reported once it stops. */
export function noteHedgeLoser(uow: UnitOfWork, loser: { planId: string; runId: string; stepIndex: number | null }): void {
  uow.hedgeLosers.push(loser.runId);
  uow.log({ planId: loser.planId, stepIndex: loser.stepIndex, runId: loser.runId, phase: "cancel", message: `cancelled: ${LOST_HEDGE}` });
}
