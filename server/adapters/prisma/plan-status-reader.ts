/**
 * The commander's plan_status tool on the database: a plan of the conversation (its
 * newest without an id), each step's fields, and the newest execution-log entries.
 */
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { PlanStatusReader } from "../../ports/agents.ts";

export function createPrismaPlanStatusReader(prisma: PrismaClient): PlanStatusReader {
  return {
    async read({ conversationId, planId, stepIndex, logLimit }) {
      const plan = planId
        ? await prisma.plan.findFirst({ where: { id: planId, conversationId } })
        : await prisma.plan.findFirst({ where: { conversationId }, orderBy: { createdAt: "desc" } });
      if (!plan) return null;
      const steps = await prisma.planStep.findMany({
        where: { planId: plan.id, ...(stepIndex !== undefined ? { index: stepIndex } : {}) },
        orderBy: { index: "asc" },
      });
      const logs = await Promise.all(
        steps.map((step) =>
          prisma.stepEvent.findMany({
            where: { planId: plan.id, stepIndex: step.index },
            orderBy: { id: "desc" },
            take: logLimit,
            select: { at: true, phase: true, message: true },
          }),
        ),
      );
      return {
        id: plan.id,
        title: plan.title,
        status: plan.status,
        steps: steps.map((step, i) => ({
          index: step.index,
          title: step.title,
          assignee: step.assignee,
          status: step.status,
          attempts: step.attempts,
          summary: step.outputSummary,
          failureReason: step.failureReason,
          log: logs[i].reverse().map((entry) => ({ at: entry.at.toISOString(), phase: entry.phase, message: entry.message })),
        })),
      };
    },
  };
}
