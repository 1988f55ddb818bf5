/**
 * A member's re-run of an ended plan: a new plan made from the ended one's spec
 * (core/rerun-spec.ts), validated like any other against who is in the conversation
 * now, serving the same request and linked to it (`Plan.rerunOfId`). The ended plan
 * stays as it ended; the chat says which plan the new one re-runs.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { rerunRawPlan } from "../core/rerun-spec.ts";
import { isTerminalPlan } from "../core/status.ts";
import { notices } from "../core/notices.ts";
import { loadPlan } from "../adapters/prisma/plan-repository.ts";
import type { PlanDTO } from "../protocol/dto.ts";
import { conflict, notFound } from "../protocol/errors.ts";
import type { ExecutorContext } from "./context.ts";
import { insertMessage } from "./messages.ts";
import { stepDTO } from "./plan-effects.ts";
import { createPlan } from "./plan-creation.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

export async function rerunPlan(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { planId: string; userId: string; byName: string },
): Promise<PlanDTO> {
  const ended = await loadPlan(tx, input.planId);
  if (!ended) throw notFound("plan");
  if (!isTerminalPlan(ended.state.status)) {
    throw conflict(`the plan is ${ended.state.status}; only an ended plan can be re-run (stop it first)`);
  }
  // a second click (or a second tab) while the first re-run still runs would start the
  // same work twice; read under the conversation's lock, so two at once make one
  const live = await tx.plan.findFirst({
    // (conversationId, status) is indexed: the conversation's live plans, a handful
    where: { conversationId: ended.conversationId, status: { in: ["running", "paused"] }, rerunOfId: input.planId },
    select: { id: true },
  });
  if (live) throw conflict(`a re-run of this plan is still running (plan ${live.id}); stop it first or wait for it to end`);
  const raw = rerunRawPlan({ ...ended.state, title: ended.title });
  const { dto, saved } = await createPlan(context, tx, uow, {
    conversationId: ended.conversationId,
    raw,
    request: ended.state.request,
    requestMessageId: ended.requestMessageId ?? undefined,
    createdByUserId: input.userId,
    rerunOfId: input.planId,
    announce: (spec, planId) =>
      insertMessage(context, uow, {
        conversationId: ended.conversationId,
        author: { kind: "system" },
        kind: "plan",
        ...notices.planRerun({ name: input.byName, title: spec.title, steps: spec.steps.length, endedAs: ended.state.status }),
        planId,
      }),
  });
  // the batch has not written the steps yet: describe the plan from what reconcile decided
  return saved ? { ...dto, status: saved.state.status, steps: saved.state.steps.map((step) => stepDTO(saved, step)) } : dto;
}
