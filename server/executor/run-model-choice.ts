/**
 * The model of a step's run, chosen where the run is created (dispatch, resume) by the
 * core's rule (core/run-model.ts): the admin's effort mapping for a light or deep step,
 * the agent's escalation model for the one attempt after a failure a stronger model
 * could fix, else the agent's own. The choice and its reason go on the run row
 * (Run.model, Run.modelReason) and, when it is not the agent's own, in the step's log.
 */
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import { chooseRunModel, type ModelReason } from "../core/run-model.ts";
import type { EscalationCause, StepState } from "../core/types.ts";
import { readEffortModels } from "../adapters/prisma/workspace-settings.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { RunLaunch } from "./run-launch.ts";

type Tx = Prisma.TransactionClient;

const CAUSE_WORDS = {
  "malformed-tool-calls": "malformed tool calls",
  "plan-rejected": "a rejected plan",
  refused: "a refused output",
} as const satisfies Record<EscalationCause, string>;

/** How an escalation reads in a step's log: "escalated after malformed tool calls → openai:gpt-5". */
export const escalationNote = (cause: EscalationCause, model: string) => `escalated after ${CAUSE_WORDS[cause]} → ${model}`;

/** The agent as this attempt of `step` runs it (its `model` replaced), and why. */
export async function stepRunModel(
  tx: Tx,
  uow: UnitOfWork,
  input: { planId: string; step: StepState; attempt: number; runId: string; agent: Agent },
): Promise<{ agent: Agent; modelReason: ModelReason }> {
  const { step, agent, attempt } = input;
  const escalating = step.escalatedAttempt === attempt;
  const effort = step.effort ?? "standard";
  // the mapping is read only for a step that can use it: the hot path's standard steps pay nothing
  const effortModels = effort !== "standard" ? await readEffortModels(tx) : {};
  const chosen = chooseRunModel({
    agentModel: agent.model,
    effort,
    effortModels,
    escalationModel: agent.escalationModel,
    lastFailure: escalating ? step.escalationCause : null,
    escalatedAlready: step.escalatedAttempt !== null && step.escalatedAttempt < attempt,
    hedge: null,
  });
  if (chosen.reason !== "agent") {
    const why =
      chosen.reason === "escalation"
        ? escalationNote(step.escalationCause ?? "malformed-tool-calls", chosen.model)
        : `${effort} effort → ${chosen.model}`;
    uow.log({
      planId: input.planId,
      stepIndex: step.index,
      runId: input.runId,
      phase: "model",
      message: why,
      data: { model: chosen.model, reason: chosen.reason },
    });
  }
  return { agent: { ...agent, model: chosen.model }, modelReason: chosen.reason };
}

/**
 * The model a run that failed outside a plan's steps (a chat reply, the commander's
 * decision) is tried once more on: the agent's escalation model, when the failure is one
 * a stronger model could fix and this run was not already the escalation. Else null.
 */
export function escalationAfter(launch: Pick<RunLaunch, "agent" | "modelReason">, cause: EscalationCause | undefined): string | null {
  if (cause === undefined) return null;
  const chosen = chooseRunModel({
    agentModel: launch.agent.model,
    effortModels: {},
    escalationModel: launch.agent.escalationModel,
    lastFailure: cause,
    escalatedAlready: launch.modelReason === "escalation",
    hedge: null,
  });
  return chosen.reason === "escalation" ? chosen.model : null;
}
