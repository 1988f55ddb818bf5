/**
 * What a plan ended with and who answered its questions, for the admin plan page: the
 * final answer (what its result steps posted, core/outcome.ts's `resultSteps`) and every
 * form the plan opened, with the person who answered it and when.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import { resultSteps } from "../core/outcome.ts";
import type { PlanAnswers } from "../protocol/rest/admin-views.ts";

export async function getPlanAnswers(
  prisma: PrismaClient,
  { actor, planId }: { actor: Actor | null; planId: string },
): Promise<PlanAnswers> {
  assertAdmin(actor);
  const steps = await prisma.planStep.findMany({
    where: { planId },
    orderBy: { index: "asc" },
    select: { id: true, index: true, title: true, status: true, waitFor: true, parentIndex: true, outputSummary: true },
  });
  const results = resultSteps(steps).filter((step) => step.status === "done");
  const [posted, forms] = await Promise.all([
    prisma.message.findMany({
      where: { planId, kind: "result", deletedAt: null, stepId: { in: results.map((step) => step.id) } },
      orderBy: { createdAt: "asc" },
      select: { stepId: true, body: true },
    }),
    prisma.form.findMany({
      where: { planId },
      orderBy: { createdAt: "asc" },
      select: {
        id: true,
        title: true,
        stepId: true,
        status: true,
        createdAt: true,
        answer: { select: { createdAt: true, user: { select: { name: true, email: true } } } },
      },
    }),
  ]);
  const indexOf = new Map(steps.map((step) => [step.id, step.index]));
  return {
    // the full text the step posted; its summary when the message is gone
    finalAnswer: results.map((step) => ({
      stepIndex: step.index,
      title: step.title,
      body: posted.findLast((message) => message.stepId === step.id)?.body ?? step.outputSummary ?? "",
    })),
    forms: forms.map((form) => ({
      id: form.id,
      title: form.title,
      stepIndex: form.stepId ? (indexOf.get(form.stepId) ?? null) : null,
      status: form.status,
      openedAt: form.createdAt.toISOString(),
      answeredBy: form.answer ? { name: form.answer.user.name, email: form.answer.user.email } : null,
      answeredAt: form.answer?.createdAt.toISOString() ?? null,
    })),
  };
}
