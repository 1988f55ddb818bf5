/**
 * Plans in the database ⇄ the core's PlanState. The executor loads a plan, lets the
 * core decide, and writes back only the steps the core says changed.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import type { RunStatus } from "../../generated/prisma/enums.ts";
import type { PlanSpec, PlanState } from "../../core/types.ts";
import { stepStateFromSpec } from "../../core/plan-state.ts";
import { isTerminalPlan } from "../../core/status.ts";
import { randomUUID } from "node:crypto";
import { prismaSql, type SqlRunner } from "../../db/sql-runner.ts";
import { sqlWrites, type WriteBatch } from "./write-batch.ts";
import { newStepRow, stepColumns, toStepState, type NewPlanRow } from "./tables.ts";

type Tx = Prisma.TransactionClient;

export interface LoadedPlan {
  state: PlanState;
  conversationId: string;
  title: string;
  requestMessageId: string | null;
  /** Plan.version as loaded; a cached copy is valid while the row still has it */
  version: number;
  /** step index → PlanStep.id */
  stepIds: Map<number, string>;
}

/**
 * A new plan and its steps, as rows queued in the unit's write batch: nothing is read or
 * written before the unit's one statement (which inserts them first, then everything
 * that refers to them). The rows serve the core's state and the plan-created event.
 */
export function insertPlan(
  batch: WriteBatch,
  input: {
    planId?: string;
    conversationId: string;
    spec: PlanSpec;
    request: string;
    requestMessageId?: string;
    createdByUserId?: string;
    /** the ended plan this one re-runs */
    rerunOfId?: string;
    /** the hash of the API submission's body, when it carried an Idempotency-Key */
    submissionHash?: string;
    now: Date;
  },
): { loaded: LoadedPlan; row: PlanRow } {
  const plan: NewPlanRow = {
    id: input.planId ?? randomUUID(),
    conversationId: input.conversationId,
    title: input.spec.title,
    status: "running",
    maxParallel: input.spec.maxParallel,
    version: 0,
    budgetTokens: input.spec.budget.maxTokens,
    budgetCost: input.spec.budget.maxCost,
    request: input.request,
    requestMessageId: input.requestMessageId ?? null,
    createdByUserId: input.createdByUserId ?? null,
    rerunOfId: input.rerunOfId ?? null,
    submissionHash: input.submissionHash ?? null,
    createdAt: input.now,
    updatedAt: input.now,
    endedAt: null,
  };
  const steps = input.spec.steps.map((step) => newStepRow(plan.id, stepStateFromSpec(step)));
  batch.add(sqlWrites.insertPlan(plan));
  batch.add(sqlWrites.insertSteps(steps));
  const row = { ...plan, steps } as unknown as PlanRow;
  return { loaded: fromPlanRow(row), row };
}

export async function loadPlan(tx: Tx, planId: string): Promise<LoadedPlan | null> {
  const plan = await tx.plan.findUnique({ where: { id: planId }, include: { steps: true } });
  return plan ? fromPlanRow(plan) : null;
}

type PlanRow = Prisma.PlanGetPayload<{ include: { steps: true } }>;

function fromPlanRow(plan: PlanRow): LoadedPlan {
  const steps = [...plan.steps].sort((a, b) => a.index - b.index);
  return {
    conversationId: plan.conversationId,
    title: plan.title,
    requestMessageId: plan.requestMessageId,
    version: plan.version,
    stepIds: new Map(steps.map((step) => [step.index, step.id])),
    state: {
      id: plan.id,
      status: plan.status,
      maxParallel: plan.maxParallel,
      budget: { maxTokens: plan.budgetTokens, maxCost: plan.budgetCost },
      request: plan.request,
      steps: steps.map(toStepState),
    },
  };
}

export interface PlanContext {
  version: number | null;
  runStatus: RunStatus | null;
}

type PlanContextRow = { version: number | null; runStatus: RunStatus | null };

function toPlanContext(row: PlanContextRow): PlanContext {
  return {
    version: row.version === null ? null : Number(row.version),
    runStatus: row.runStatus,
  };
}

/** The advisory-lock key of a conversation (the same whichever way the lock is taken). */
export const conversationLockKey = (conversationId: string) => `baton:conversation:${conversationId}`;

/**
 * Takes the conversation's lock and, in the same round trip, reads what a reconcile
 * of `planId` needs: the plan's version (to validate a cached copy) and the status of `runId`
 * (see baton_enter_unit in prisma/migrations/*_database_functions for why reading after the lock this way is safe).
 */
export async function enterConversation(
  tx: Tx,
  input: { conversationId: string; planId: string | null; runId: string | null },
): Promise<PlanContext> {
  return planContextQuery(prismaSql(tx), conversationLockKey(input.conversationId), input.planId, input.runId);
}

/** The same read without taking the lock (the optimistic path checks it when it writes). */
export async function readPlanContext(sql: SqlRunner, input: { planId: string; runId?: string }): Promise<PlanContext> {
  return planContextQuery(sql, null, input.planId, input.runId ?? null);
}

async function planContextQuery(sql: SqlRunner, lockKey: string | null, planId: string | null, runId: string | null): Promise<PlanContext> {
  const rows = await sql<PlanContextRow>(`SELECT * FROM baton_enter_unit($1, $2, $3)`, [lockKey, planId, runId]);
  return toPlanContext(rows[0]);
}

/**
 * Queues the plan (its version bumped) and its changed steps in the transaction's
 * write batch, appended steps as inserts. Returns the plan as it will be stored.
 */
export function savePlan(batch: WriteBatch, input: { loaded: LoadedPlan; next: PlanState; changedSteps: number[]; now: Date }): LoadedPlan {
  const { loaded, next, now } = input;
  const stepIds = new Map(loaded.stepIds);
  const statusChanged = next.status !== loaded.state.status;
  const ended = isTerminalPlan(next.status);
  const version = loaded.version + 1;
  batch.set(
    `plan:${next.id}`,
    sqlWrites.updatePlan({
      id: next.id,
      version,
      updatedAt: now,
      ...(statusChanged ? { status: next.status, endedAt: ended ? now : null } : {}),
    }),
  );
  for (const index of new Set(input.changedSteps)) {
    const step = next.steps.find((candidate) => candidate.index === index);
    if (!step) continue;
    let id = stepIds.get(index);
    if (!id) {
      // an appended step: inserted by the same statement, before the batched update below
      const row = newStepRow(next.id, step);
      batch.add(sqlWrites.insertSteps([row]));
      id = row.id;
      stepIds.set(index, id);
    }
    batch.set(`step:${id}`, sqlWrites.updateStep({ id, ...stepColumns(step) }));
  }
  return { ...loaded, state: next, version, stepIds };
}
