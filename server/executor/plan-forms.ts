/**
 * The forms of a plan's steps: raised when a step needs a person, closed when the step
 * stopped waiting without an answer or the plan ended, each close written once a unit.
 */
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import type { LoadedPlan } from "../adapters/prisma/plan-repository.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import { formInclude, toFormDTO } from "../adapters/prisma/serializers.ts";
import type { ExecutorContext } from "./context.ts";
import { insertMessage } from "./messages.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

/**
 * A step that stopped waiting for a person without an answer (skipped by a cascade,
 * a released quorum, a cancel) leaves its form open: close it, so nobody answers a
 * question that no longer matters. The plan ending closes the rest (plan-ended).
 */
export async function closeAbandonedForms(tx: Tx, uow: UnitOfWork, input: { before: LoadedPlan; after: LoadedPlan; changed: number[] }) {
  // only changed steps can have left `blocked`; steps are ordered by index, so look them up directly
  const byIndex = (plan: LoadedPlan, index: number) =>
    plan.state.steps[index - 1]?.index === index ? plan.state.steps[index - 1] : plan.state.steps.find((step) => step.index === index);
  const left = [...new Set(input.changed)]
    .map((index) => ({ previous: byIndex(input.before, index), step: byIndex(input.after, index) }))
    .filter(({ previous, step }) => previous?.status === "blocked" && (step?.status === "skipped" || step?.status === "failed"))
    .map(({ step }) => step!);
  if (left.length === 0) return;
  const stepIds = left.map((step) => input.after.stepIds.get(step.index)!).filter(Boolean);
  const open = await openForms(tx, { stepId: { in: stepIds }, status: "open" });
  for (const form of open) {
    closeForm(uow, form, left.find((step) => input.after.stepIds.get(step.index) === form.stepId)?.index ?? null);
  }
}

type FormRow = Prisma.FormGetPayload<{ include: typeof formInclude }>;

/**
 * The open forms `where` names, with what their DTO needs. Most plans end with none: one
 * statement finds that, where the include alone costs three (form, answer, user).
 */
export async function openForms(tx: Tx, where: Prisma.FormWhereInput): Promise<FormRow[]> {
  const ids = await tx.form.findMany({ where, select: { id: true } });
  if (ids.length === 0) return [];
  return tx.form.findMany({ where: { id: { in: ids.map((form) => form.id) } }, include: formInclude });
}

/** Closes an open form once per transaction (the batch must not write a row twice). */
export function closeForm(uow: UnitOfWork, form: FormRow, stepIndex: number | null): void {
  if (uow.closedForms.has(form.id)) return;
  uow.closedForms.add(form.id);
  uow.batch.add(sqlWrites.closeForm({ id: form.id }));
  uow.emit("form-closed", { form: toFormDTO({ ...form, status: "cancelled" }, stepIndex) });
}

/** Raises a form in the conversation: a Form row and a visible message carrying it. */
export async function openForm(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: {
    conversationId: string;
    planId: string | null;
    stepId: string | null;
    stepIndex: number | null;
    runId: string | null;
    body: string;
    spec: { title: string; fields: unknown[] };
    /** who asks: the blocked agent, or the commander for a `user` step */
    asker?: Agent;
  },
): Promise<void> {
  const form = await tx.form.create({
    data: {
      conversationId: input.conversationId,
      planId: input.planId,
      stepId: input.stepId,
      runId: input.runId,
      title: input.spec.title,
      fields: input.spec.fields as Prisma.InputJsonValue,
    },
    include: formInclude,
  });
  const asker = input.asker ?? (await context.agents.commanderFor(tx, input.conversationId));
  uow.emit("form-created", { form: toFormDTO(form, input.stepIndex) });
  insertMessage(context, uow, {
    conversationId: input.conversationId,
    author: { kind: "agent", agent: asker },
    kind: "form",
    body: input.body,
    planId: input.planId,
    stepId: input.stepId,
    runId: input.runId,
    formId: form.id,
  });
}
