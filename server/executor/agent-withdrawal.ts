/**
 * An admin disabled an agent: its runs still waiting in the run queue never start (runs
 * already running finish). Each conversation's queued runs of the agent are withdrawn in
 * that conversation's unit, with the rows locked there (`FOR UPDATE SKIP LOCKED`), so no
 * worker claims one meanwhile; a row a claim holds right now is left to run, exactly as
 * if the claim had come a moment earlier. A step's run ends its step as a real failure
 * with the reason (the step's on_failure applies); a run of no step (a mention, an
 * outside reaction) is cancelled and the conversation told why.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import type { ExecutorContext } from "./context.ts";
import { insertMessage } from "./messages.ts";
import { notices } from "../core/notices.ts";
import { announceCancelledRun, applyPlanEvent } from "./plan-effects.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;
type InConversation = <T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>) => Promise<T>;

interface QueuedRun {
  id: string;
  planId: string | null;
  stepIndex: number | null;
}

/** Withdraws every queued run of `agentId`, one unit per conversation. Returns how many. */
export async function withdrawQueuedRuns(
  context: ExecutorContext,
  inConversation: InConversation,
  input: { agentId: string; handle: string; reason: string },
): Promise<number> {
  const conversations = await context.prisma.run.findMany({
    where: { agentId: input.agentId, status: "queued" },
    distinct: ["conversationId"],
    select: { conversationId: true },
  });
  let withdrawn = 0;
  for (const { conversationId } of conversations) {
    withdrawn += await inConversation(conversationId, (tx, uow) => withdrawIn(context, tx, uow, { ...input, conversationId }));
  }
  return withdrawn;
}

async function withdrawIn(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { agentId: string; handle: string; reason: string; conversationId: string },
): Promise<number> {
  const queued = await tx.$queryRaw<QueuedRun[]>`
    SELECT r."id", r."planId", s."index" AS "stepIndex" FROM "Run" r
    LEFT JOIN "PlanStep" s ON s."id" = r."stepId"
    WHERE r."agentId" = ${input.agentId} AND r."conversationId" = ${input.conversationId} AND r."status" = 'queued'
    ORDER BY r."createdAt"
    FOR UPDATE OF r SKIP LOCKED`;
  const endedAt = context.stamp();
  let lone = 0;
  for (const run of queued) {
    await announceCancelledRun(tx, uow, run.id, endedAt);
    uow.batch.add(sqlWrites.cancelRun({ id: run.id, endedAt }));
    if (run.planId !== null && run.stepIndex !== null) {
      await applyPlanEvent(context, tx, uow, {
        planId: run.planId,
        event: {
          type: "run-finished",
          stepIndex: run.stepIndex,
          runId: run.id,
          outcome: { kind: "failed", transient: false, reason: input.reason },
        },
      });
    } else {
      lone += 1;
    }
  }
  if (lone > 0) {
    insertMessage(context, uow, {
      conversationId: input.conversationId,
      author: { kind: "system" },
      kind: "text",
      ...notices.agentDisabledNotStarted(input.handle, lone),
    });
  }
  return queued.length;
}
