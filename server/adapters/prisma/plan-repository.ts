/**
 * Plans in the database ⇄ the core's PlanState. The executor loads a plan, lets the
 * core decide, and writes back only the steps the core says changed.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { CapacityView, PlanSpec, PlanState, StepSpec, StepState } from "../../core/types.ts";

type Tx = Prisma.TransactionClient;
type StepRow = Prisma.PlanStepGetPayload<object>;

export interface LoadedPlan {
  state: PlanState;
  conversationId: string;
  title: string;
  /** step index → PlanStep.id */
  stepIds: Map<number, string>;
}

const toMillis = (date: Date | null) => (date ? date.getTime() : null);
const toDate = (millis: number | null) => (millis === null ? null : new Date(millis));

function toStepState(row: StepRow): StepState {
  return {
    index: row.index,
    title: row.title,
    assignee: row.assignee,
    input: row.input,
    waitFor: row.waitFor,
    onFailure: row.onFailure,
    maxRetries: row.maxRetries,
    status: row.status,
    attempts: row.attempts,
    transientFailures: row.transientFailures,
    retryAt: toMillis(row.retryAt),
    outputSummary: row.outputSummary,
    outputFiles: row.outputFiles,
    outputUntrusted: row.outputUntrusted,
    failureReason: row.failureReason,
    liveRunId: row.liveRunId,
    decisionPending: row.decisionPending,
    startedAt: toMillis(row.startedAt),
    endedAt: toMillis(row.endedAt),
  };
}

function stepColumns(step: StepState) {
  return {
    title: step.title,
    assignee: step.assignee,
    input: step.input,
    waitFor: step.waitFor,
    onFailure: step.onFailure,
    maxRetries: step.maxRetries,
    status: step.status,
    attempts: step.attempts,
    transientFailures: step.transientFailures,
    retryAt: toDate(step.retryAt),
    outputSummary: step.outputSummary,
    outputFiles: step.outputFiles,
    outputUntrusted: step.outputUntrusted,
    failureReason: step.failureReason,
    liveRunId: step.liveRunId,
    decisionPending: step.decisionPending,
    startedAt: toDate(step.startedAt),
    endedAt: toDate(step.endedAt),
  };
}

export function freshStepState(spec: StepSpec): StepState {
  return {
    ...spec,
    status: "pending",
    attempts: 0,
    transientFailures: 0,
    retryAt: null,
    outputSummary: null,
    outputFiles: [],
    outputUntrusted: false,
    failureReason: null,
    liveRunId: null,
    decisionPending: false,
    startedAt: null,
    endedAt: null,
  };
}

export async function insertPlan(
  tx: Tx,
  input: { conversationId: string; spec: PlanSpec; request: string; requestMessageId?: string; createdByUserId?: string },
): Promise<LoadedPlan> {
  const plan = await tx.plan.create({
    data: {
      conversationId: input.conversationId,
      title: input.spec.title,
      maxParallel: input.spec.maxParallel,
      request: input.request,
      requestMessageId: input.requestMessageId,
      createdByUserId: input.createdByUserId,
    },
  });
  await tx.planStep.createMany({
    data: input.spec.steps.map((step) => ({ planId: plan.id, index: step.index, ...stepColumns(freshStepState(step)) })),
  });
  const loaded = await loadPlan(tx, plan.id);
  if (!loaded) throw new Error(`plan ${plan.id} vanished inside its own transaction`);
  return loaded;
}

export async function loadPlan(tx: Tx, planId: string): Promise<LoadedPlan | null> {
  const plan = await tx.plan.findUnique({ where: { id: planId }, include: { steps: true } });
  if (!plan) return null;
  const steps = [...plan.steps].sort((a, b) => a.index - b.index);
  return {
    conversationId: plan.conversationId,
    title: plan.title,
    stepIds: new Map(steps.map((step) => [step.index, step.id])),
    state: {
      id: plan.id,
      status: plan.status,
      maxParallel: plan.maxParallel,
      request: plan.request,
      steps: steps.map(toStepState),
    },
  };
}

/**
 * Writes back the plan status and the changed steps; appended steps are inserted.
 * Returns the PlanStep ids of every step (including new ones).
 */
export async function savePlan(
  tx: Tx,
  loaded: LoadedPlan,
  next: PlanState,
  changedSteps: number[],
): Promise<Map<number, string>> {
  const stepIds = new Map(loaded.stepIds);
  if (next.status !== loaded.state.status) {
    const ended = next.status === "completed" || next.status === "failed" || next.status === "cancelled";
    await tx.plan.update({
      where: { id: next.id },
      data: { status: next.status, endedAt: ended ? new Date() : null },
    });
  }
  for (const index of new Set(changedSteps)) {
    const step = next.steps.find((candidate) => candidate.index === index);
    if (!step) continue;
    const id = stepIds.get(index);
    if (id) {
      await tx.planStep.update({ where: { id }, data: stepColumns(step) });
    } else {
      const created = await tx.planStep.create({ data: { planId: next.id, index, ...stepColumns(step) } });
      stepIds.set(index, created.id);
    }
  }
  return stepIds;
}

/**
 * How many runs of each agent (and each model) are live outside this plan, so the
 * core can keep pooled limits across plans and conversations.
 */
export async function loadCapacity(
  tx: Tx,
  input: { planId: string | null; handles: string[]; modelConcurrency: Record<string, number> },
): Promise<CapacityView> {
  const agents = await tx.agent.findMany({
    where: { OR: [{ handle: { in: input.handles } }, { role: "commander" }] },
    select: { id: true, handle: true, role: true, model: true, concurrency: true },
  });
  const live = await tx.run.groupBy({
    by: ["agentId"],
    where: {
      status: { in: ["queued", "running"] },
      agentId: { in: agents.map((agent) => agent.id) },
      ...(input.planId ? { OR: [{ planId: null }, { planId: { not: input.planId } }] } : {}),
    },
    _count: { _all: true },
  });
  const liveByAgentId = new Map(live.map((row) => [row.agentId, row._count._all]));
  const view: CapacityView = { agents: {}, models: {}, agentModel: {} };
  const liveByModel = new Map<string, number>();
  for (const agent of agents) {
    const key = agent.role === "commander" ? "commander" : agent.handle;
    const count = liveByAgentId.get(agent.id) ?? 0;
    view.agents[key] = { limit: agent.concurrency, live: count };
    view.agentModel[key] = agent.model;
    liveByModel.set(agent.model, (liveByModel.get(agent.model) ?? 0) + count);
  }
  for (const [model, limit] of Object.entries(input.modelConcurrency)) {
    view.models[model] = { limit, live: liveByModel.get(model) ?? 0 };
  }
  return view;
}
