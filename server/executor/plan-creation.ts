/**
 * Creating a plan: the one path for a plan the commander wrote (run-lifecycle.ts) and
 * one submitted through the API (executor.ts). Validated by the core against who is in
 * the conversation, queued for insert, announced, and reconciled for the first time —
 * all in the caller's unit of work, whose one statement writes it.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { validatePlan } from "../core/validate-plan.ts";
import type { PlanSpec } from "../core/types.ts";
import { insertPlan, type LoadedPlan } from "../adapters/prisma/plan-repository.ts";
import { toPlanDTO } from "../adapters/prisma/serializers.ts";
import type { PlanDTO } from "../protocol/dto.ts";
import type { ExecutorContext } from "./context.ts";
import { reconcilePlan } from "./plan-effects.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

/** Handles of the sub-agents in a conversation: who a plan may assign. */
export async function conversationHandles(context: ExecutorContext, tx: Tx, conversationId: string): Promise<Set<string>> {
  const roster = await context.agents.roster(tx, conversationId);
  return new Set(roster.filter((agent) => agent.role === "sub_agent").map((agent) => agent.handle));
}

/**
 * Validates `raw` (throws PlanValidationError), inserts the plan, emits plan-created,
 * lets `announce` post the message that goes with it, then runs the first reconcile.
 * Returns the plan as created and as the reconcile left it (null if it vanished).
 */
/** How long after a plan the same request, with the same plan, joins it instead of running again. */
export const TWIN_PLAN_WINDOW_MS = 2 * 60_000;

/**
 * A plan of this conversation, still running, made from the same request with the same
 * title within TWIN_PLAN_WINDOW_MS: the plan a repeated request joins. Only the
 * commander's plans look for one; a person or a client who wants the work done twice says
 * so with a different request (or, through the API, a different Idempotency-Key).
 */
export async function recentTwinPlan(
  context: ExecutorContext,
  tx: Tx,
  input: { conversationId: string; request: string; raw: unknown },
): Promise<{ id: string; title: string } | null> {
  const title = (input.raw as { title?: unknown } | null)?.title;
  if (typeof title !== "string") return null;
  return tx.plan.findFirst({
    where: {
      conversationId: input.conversationId,
      request: input.request,
      title,
      status: { in: ["running", "paused"] },
      createdAt: { gte: new Date(context.stamp().getTime() - TWIN_PLAN_WINDOW_MS) },
    },
    orderBy: { createdAt: "desc" },
    select: { id: true, title: true },
  });
}

export async function createPlan(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: {
    conversationId: string;
    raw: unknown;
    /** the request the plan answers; the plan's title when none is given */
    request?: string;
    requestMessageId?: string;
    createdByUserId?: string;
    /** the new plan's id, when the caller chose it (an optimistic unit names its plan up front) */
    planId?: string;
    /** the ended plan this one re-runs */
    rerunOfId?: string;
    /** the hash of the API submission's body, when it carried an Idempotency-Key */
    submissionHash?: string;
    announce: (spec: PlanSpec, planId: string) => void;
  },
): Promise<{ dto: PlanDTO; saved: LoadedPlan | null }> {
  const spec = validatePlan({
    raw: input.raw,
    assignees: await conversationHandles(context, tx, input.conversationId),
    limits: context.config.planLimits,
  });
  const { loaded, row } = insertPlan(uow.batch, {
    planId: input.planId,
    conversationId: input.conversationId,
    spec,
    request: input.request ?? spec.title,
    requestMessageId: input.requestMessageId,
    createdByUserId: input.createdByUserId,
    rerunOfId: input.rerunOfId,
    submissionHash: input.submissionHash,
    now: context.stamp(),
  });
  uow.cachePlan(loaded); // the reconcile below starts from it instead of reading it again
  const dto = toPlanDTO(row);
  uow.emit("plan-created", { plan: dto });
  input.announce(spec, row.id);
  // the plan was inserted by this transaction, so its version is known: no read
  const saved = await reconcilePlan(context, tx, uow, {
    planId: row.id,
    event: { type: "plan-created" },
    read: { version: loaded.version, runStatus: null },
  });
  return { dto, saved };
}
