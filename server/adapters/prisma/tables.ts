/**
 * The one home of the rows the hot path writes (write-batch.ts → `baton_write_units`).
 * Each row type is the generated Prisma model narrowed to the columns the statement
 * names, so a column's type (its enum, its nullability) comes from schema.prisma alone;
 * the column lists are the same constants the statement's test compares with the SQL
 * function's own lists (`function-columns.int.test.ts`, beside this file). An insert that misses a
 * column the schema requires fails typecheck (schema-checks.ts).
 */
import { randomUUID } from "node:crypto";
import type { Message, Plan, PlanStep, Prisma, Run, StepEvent } from "../../generated/prisma/client.ts";
import type * as Core from "../../core/types.ts";
import { effortOf, escalationCauseOf, type ForEachField, type StepExpansion, type StepState } from "../../core/types.ts";

/**
 * A model's columns as the statement receives them (in one JSON document): the
 * generated column types, but a JSON column takes any value the caller serialises.
 */
type Row<Model, Column extends keyof Model> = {
  [K in Column]: [Prisma.JsonValue] extends [Model[K]] ? unknown : Model[K];
};

export const MESSAGE_COLUMNS = [
  "id",
  "conversationId",
  "authorKind",
  "authorAgentId",
  "kind",
  "body",
  "notice",
  "mentions",
  "planId",
  "stepId",
  "runId",
  "formId",
  "createdAt",
] as const satisfies readonly (keyof Message)[];
export type MessageRow = Row<Message, (typeof MESSAGE_COLUMNS)[number]>;

/** A new run's columns; its status is always `queued` (the statement writes it). */
export const RUN_COLUMNS = [
  "id",
  "conversationId",
  "agentId",
  "planId",
  "stepId",
  "kind",
  "attempt",
  "input",
  "model",
  "modelReason",
  "triggerMessageId",
  "resumesRunId",
  "createdAt",
  "notBefore",
] as const satisfies readonly (keyof Run)[];
export type RunRow = Row<Run, (typeof RUN_COLUMNS)[number]>;

/** How a run ended; `notBefore` stays (a retry's backoff), the lease is cleared by the statement. */
export const FINISHED_RUN_COLUMNS = [
  "status",
  "endedAt",
  "error",
  "tokensIn",
  "tokensOut",
  "cacheReadTokens",
  "cacheWriteTokens",
  "cost",
  "usageEstimated",
] as const satisfies readonly (keyof Run)[];
export type FinishedRunRow = Row<Run, "id" | (typeof FINISHED_RUN_COLUMNS)[number]> & { status: Core.FinishedRunStatus };

/** A new plan: every column, so the statement needs no defaults. */
export type NewPlanRow = Row<Plan, keyof Plan> & { status: "running"; endedAt: null };

/** A plan's update: its version always, its status (and end) when it changed. */
export type PlanRow = Row<Plan, "id" | "version" | "updatedAt"> & Partial<Row<Plan, "status" | "endedAt">>;

/** Every column of a PlanStep the executor owns (all but its id, plan and index). */
export const STEP_COLUMNS = [
  "title",
  "assignee",
  "input",
  "waitFor",
  "optionalWaitFor",
  "quorum",
  "budgetTokens",
  "budgetCost",
  "forEachFrom",
  "forEachField",
  "forEachMaxParallel",
  "expansion",
  "parentIndex",
  "onFailure",
  "maxRetries",
  "status",
  "attempts",
  "transientFailures",
  "retryAt",
  "outputSummary",
  "outputFiles",
  "outputUntrusted",
  "failureReason",
  "liveRunId",
  "hedgeRunId",
  "hedgeModel",
  "effort",
  "escalatedAttempt",
  "escalationCause",
  "decisionPending",
  "decisionCount",
  "renderedInput",
  "usageTokens",
  "usageCost",
  "startedAt",
  "endedAt",
] as const satisfies readonly (keyof PlanStep)[];
export type StepColumns = Row<PlanStep, (typeof STEP_COLUMNS)[number]>;
export type StepRow = Row<PlanStep, "id"> & StepColumns;
/** A new step: every column (the statement inserts the whole row). */
export type NewStepRow = Row<PlanStep, "id" | "planId" | "index"> & StepColumns;

export const STEP_EVENT_COLUMNS = [
  "planId",
  "stepIndex",
  "runId",
  "at",
  "phase",
  "message",
  "data",
] as const satisfies readonly (keyof StepEvent)[];
export type StepEventRow = Row<StepEvent, (typeof STEP_EVENT_COLUMNS)[number]>;

// ─── PlanStep ⇄ the core's StepState: the one mapper of the table ───────────

const toMillis = (date: Date | null) => (date ? date.getTime() : null);
const toDate = (millis: number | null) => (millis === null ? null : new Date(millis));

/** A PlanStep row → the core's step. */
export function toStepState(row: PlanStep): StepState {
  const effort = effortOf(row.effort);
  return {
    index: row.index,
    title: row.title,
    assignee: row.assignee,
    input: row.input,
    waitFor: row.waitFor,
    optionalWaitFor: row.optionalWaitFor,
    quorum: row.quorum,
    budget: { maxTokens: row.budgetTokens, maxCost: row.budgetCost },
    forEach:
      row.forEachFrom === null
        ? null
        : { from: row.forEachFrom, field: row.forEachField as ForEachField, maxParallel: row.forEachMaxParallel },
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
    hedgeRunId: row.hedgeRunId,
    hedgeModel: row.hedgeModel,
    ...(effort === null ? {} : { effort }),
    escalatedAttempt: row.escalatedAttempt,
    escalationCause: escalationCauseOf(row.escalationCause),
    decisionPending: row.decisionPending,
    decisionCount: row.decisionCount,
    renderedInput: row.renderedInput,
    usage: { tokens: row.usageTokens, cost: row.usageCost },
    expansion: (row.expansion as StepExpansion | null) ?? null,
    parentIndex: row.parentIndex,
    startedAt: toMillis(row.startedAt),
    endedAt: toMillis(row.endedAt),
  };
}

/** The core's step → the columns the executor owns (every one: the update writes the whole row). */
export function stepColumns(step: StepState): StepColumns {
  return {
    title: step.title,
    assignee: step.assignee,
    input: step.input,
    waitFor: step.waitFor,
    optionalWaitFor: step.optionalWaitFor,
    quorum: step.quorum,
    budgetTokens: step.budget.maxTokens,
    budgetCost: step.budget.maxCost,
    forEachFrom: step.forEach?.from ?? null,
    forEachField: step.forEach?.field ?? null,
    forEachMaxParallel: step.forEach?.maxParallel ?? null,
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
    hedgeRunId: step.hedgeRunId,
    hedgeModel: step.hedgeModel,
    effort: step.effort ?? null,
    escalatedAttempt: step.escalatedAttempt,
    escalationCause: step.escalationCause,
    decisionPending: step.decisionPending,
    decisionCount: step.decisionCount,
    renderedInput: step.renderedInput,
    usageTokens: step.usage.tokens,
    usageCost: step.usage.cost,
    expansion: step.expansion,
    parentIndex: step.parentIndex,
    startedAt: toDate(step.startedAt),
    endedAt: toDate(step.endedAt),
  };
}

/** A whole PlanStep row, for its insert (the batch's `newSteps`): every column, defaults too. */
export function newStepRow(planId: string, step: StepState): NewStepRow {
  return { id: randomUUID(), planId, index: step.index, ...stepColumns(step) };
}
