/**
 * Admin → Repositories' slots view: for every repository, how much of its pool is in
 * use (slots whose step runs, against BATON_SLOTS_PER_REPO) and which slots have a
 * worktree on disk now. Admins only, checked here at the data.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import type { SlotsOverview } from "../protocol/rest/workspace.ts";

export async function slotsOverview(prisma: PrismaClient, input: { actor: Actor | null; limit: number }): Promise<SlotsOverview> {
  assertAdmin(input.actor);
  const [repositories, slots] = await Promise.all([
    prisma.repository.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } }),
    prisma.slot.findMany({
      where: { status: "active" },
      orderBy: [{ createdAt: "asc" }],
      select: { repositoryId: true, planId: true, stepIndex: true, branch: true, updatedAt: true },
    }),
  ]);
  const planIds = [...new Set(slots.map((slot) => slot.planId))];
  const [plans, steps] = await Promise.all([
    prisma.plan.findMany({ where: { id: { in: planIds } }, select: { id: true, title: true, conversationId: true } }),
    prisma.planStep.findMany({ where: { planId: { in: planIds } }, select: { planId: true, index: true, status: true } }),
  ]);
  const planById = new Map(plans.map((plan) => [plan.id, plan]));
  const statusOf = new Map(steps.map((step) => [`${step.planId}:${step.index}`, step.status as string]));
  return {
    repositories: repositories.map((repository) => {
      const active = slots
        .filter((slot) => slot.repositoryId === repository.id)
        .map((slot) => ({
          planId: slot.planId,
          planTitle: planById.get(slot.planId)?.title ?? "(deleted plan)",
          conversationId: planById.get(slot.planId)?.conversationId ?? "",
          stepIndex: slot.stepIndex,
          branch: slot.branch,
          stepStatus: statusOf.get(`${slot.planId}:${slot.stepIndex}`) ?? "unknown",
          since: slot.updatedAt.toISOString(),
        }));
      return {
        id: repository.id,
        name: repository.name,
        inUse: active.filter((slot) => slot.stepStatus === "in_progress").length,
        limit: input.limit,
        active,
      };
    }),
  };
}
