/**
 * A member stops a run that answers a message (a direct mention, the commander's chat
 * reply). A plan's runs stop with their plan (cancelPlan): the plan decides what a
 * stopped step means, a lone run has nothing to decide.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { assertMember, type Actor } from "../auth/actor.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import { BatonError, notFound } from "../protocol/errors.ts";
import { announceCancelledRun } from "./plan-effects.ts";
import type { ExecutorContext } from "./context.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

export type StopTarget = { kind: "run" } | { kind: "plan"; planId: string };

/** What stopping the run means: the run itself, or its plan. Throws not_found for a run of another conversation. */
export async function stopTarget(db: Tx, input: { actor: Actor; conversationId: string; runId: string }): Promise<StopTarget> {
  await assertMember(db, input.actor, input.conversationId);
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { conversationId: true, planId: true, kind: true } });
  if (!run || run.conversationId !== input.conversationId) throw notFound("run");
  // the planning reply counts toward its plan but is not one of its runs
  return run.planId && run.kind !== "chat" ? { kind: "plan", planId: run.planId } : { kind: "run" };
}

/** Cancels a live lone run in the conversation's unit; its final state goes out as a run update. */
export async function stopLoneRun(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { actor: Actor; conversationId: string; runId: string },
): Promise<void> {
  await assertMember(tx, input.actor, input.conversationId);
  const run = await tx.run.findUnique({ where: { id: input.runId }, select: { conversationId: true, status: true } });
  if (!run || run.conversationId !== input.conversationId) throw notFound("run");
  if (run.status !== "queued" && run.status !== "running") throw new BatonError("conflict", `the run has already ended (${run.status})`);
  const endedAt = new Date(context.clock.now());
  await announceCancelledRun(tx, uow, input.runId, endedAt);
  uow.batch.add(sqlWrites.cancelRun({ id: input.runId, endedAt }));
  uow.runsToCancel.push(input.runId);
}
