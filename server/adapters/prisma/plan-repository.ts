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
  requestMessageId: string | null;
  /** Plan.version as loaded; a cached copy is valid while the row still has it */
  version: number;
  /** step index → PlanStep.id */
  stepIds: Map<number, string>;
  /** step index → the input as rendered at its last dispatch */
  renderedInputs: Map<number, string | null>;
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
    requestMessageId: plan.requestMessageId,
    version: plan.version,
    stepIds: new Map(steps.map((step) => [step.index, step.id])),
    renderedInputs: new Map(steps.map((step) => [step.index, step.renderedInput])),
    state: {
      id: plan.id,
      status: plan.status,
      maxParallel: plan.maxParallel,
      request: plan.request,
      steps: steps.map(toStepState),
    },
  };
}

/** The plan's current version, read under the conversation lock to validate a cached copy. */
export async function planVersion(tx: Tx, planId: string): Promise<number | null> {
  const row = await tx.plan.findUnique({ where: { id: planId }, select: { version: true } });
  return row?.version ?? null;
}

/**
 * Writes back the plan (always bumping its version) and the changed steps, with the
 * inputs rendered for steps dispatched now; appended steps are inserted. Returns the
 * plan as now stored.
 */
export async function savePlan(
  tx: Tx,
  input: { loaded: LoadedPlan; next: PlanState; changedSteps: number[]; renderedInputs: Map<number, string> },
): Promise<LoadedPlan> {
  const { loaded, next } = input;
  const stepIds = new Map(loaded.stepIds);
  const renderedInputs = new Map(loaded.renderedInputs);
  for (const [index, rendered] of input.renderedInputs) renderedInputs.set(index, rendered);
  const statusChanged = next.status !== loaded.state.status;
  const ended = next.status === "completed" || next.status === "failed" || next.status === "cancelled";
  await tx.plan.update({
    where: { id: next.id },
    data: {
      version: { increment: 1 },
      ...(statusChanged ? { status: next.status, endedAt: ended ? new Date() : null } : {}),
    },
  });
  for (const index of new Set(input.changedSteps)) {
    const step = next.steps.find((candidate) => candidate.index === index);
    if (!step) continue;
    const id = stepIds.get(index);
    const rendered = input.renderedInputs.get(index);
    const columns = { ...stepColumns(step), ...(rendered !== undefined ? { renderedInput: rendered } : {}) };
    if (id) {
      await tx.planStep.update({ where: { id }, data: columns });
    } else {
      const created = await tx.planStep.create({ data: { planId: next.id, index, ...columns } });
      stepIds.set(index, created.id);
    }
  }
  return { ...loaded, state: next, version: loaded.version + 1, stepIds, renderedInputs };
}

/**
 * How many runs of each agent (and each model) are live outside this plan, so the
 * core can keep pooled limits across plans and conversations.
 */
export async function loadCapacity(
  tx: Tx,
  input: {
    planId: string | null;
    agents: { id: string; handle: string; role: string; model: string; concurrency: number }[];
    modelConcurrency: Record<string, number>;
  },
): Promise<CapacityView> {
  const { agents } = input;
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
