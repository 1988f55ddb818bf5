/** Creating run rows: every agent run, whatever started it, begins here. */
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import { toRunDTO } from "../adapters/prisma/serializers.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

/**
 * mention: a person's @-mention; step: a plan step dispatched by @-mention (the agent
 * sees no difference); chat: the commander answering a message that mentions nobody;
 * commander-step: the commander's own step; decision: the commander deciding a failure.
 */
export type RunKind = "mention" | "step" | "chat" | "commander-step" | "decision";

export async function createRun(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: {
    id: string;
    conversationId: string;
    agent: Agent;
    kind: RunKind;
    input: string;
    planId?: string | null;
    stepId?: string | null;
    stepIndex?: number | null;
    attempt?: number;
    triggerMessageId?: string;
    resumesRunId?: string;
  },
): Promise<void> {
  const now = context.clock.now();
  // The run is born owned by this process: it starts it right after commit, and the
  // lease lets another process take over if this one dies first.
  const run = await tx.run.create({
    data: {
      id: input.id,
      conversationId: input.conversationId,
      agentId: input.agent.id,
      planId: input.planId ?? null,
      stepId: input.stepId ?? null,
      kind: input.kind,
      attempt: input.attempt ?? 1,
      status: "running",
      input: input.input,
      model: input.agent.model,
      triggerMessageId: input.triggerMessageId,
      resumesRunId: input.resumesRunId,
      leaseOwner: context.instanceId,
      leaseExpiresAt: new Date(now + context.config.leaseMs),
      startedAt: new Date(now),
    },
  });
  let stepIndex = input.stepIndex ?? null;
  if (stepIndex === null && input.stepId) {
    stepIndex = (await tx.planStep.findUnique({ where: { id: input.stepId }, select: { index: true } }))?.index ?? null;
  }
  uow.emit("run-updated", { run: toRunDTO(run, { agentHandle: input.agent.handle, stepIndex }) });
  uow.runsToStart.push(run.id);
}
