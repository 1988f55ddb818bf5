/**
 * A person answers an open form: a plan step that asked (the plan resumes the step) or a
 * direct mention that asked (the same agent session continues). Members only; one
 * answer per form; secret values go to the asking run alone.
 */
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { formatFormAnswer, maskSecretAnswers, secretAnswers, validateFormAnswer } from "../core/form-schema.ts";
import type { FormSpec } from "../core/types.ts";
import { formInclude, toFormDTO } from "../adapters/prisma/serializers.ts";
import { assertMember } from "../access/actor.ts";
import { BatonError, notFound } from "../protocol/errors.ts";
import type { FormDTO } from "../protocol/dto.ts";
import type { Engine } from "./engine.ts";

export function createFormServices({ prisma, engine }: { prisma: PrismaClient; engine: Engine }) {
  return {
    async answerForm(input: { formId: string; userId: string; values: unknown }): Promise<FormDTO> {
      const form = await prisma.form.findUnique({ where: { id: input.formId }, select: { conversationId: true } });
      if (!form) throw notFound("form");
      return engine.inConversation(form.conversationId, async (tx, uow) => {
        await assertMember(tx, { id: input.userId, role: "member" }, form.conversationId);
        const current = await tx.form.findUniqueOrThrow({ where: { id: input.formId } });
        if (current.status !== "open") throw new BatonError("form_closed", "this form has already been answered");
        const spec: FormSpec = { title: current.title, fields: current.fields as unknown as FormSpec["fields"] };
        const values = validateFormAnswer(spec, input.values);
        // secret values go to the asking run only: stored, broadcast and summarised masked
        const shown = maskSecretAnswers(spec, values);
        const secrets = secretAnswers(spec, values);
        const forAgent = secrets.length > 0 ? { answer: formatFormAnswer(spec, values), secrets } : undefined;
        await tx.formAnswer.create({ data: { formId: current.id, userId: input.userId, values: shown } });
        await tx.form.update({ where: { id: current.id }, data: { status: "answered" } });
        const step = current.stepId ? await tx.planStep.findUnique({ where: { id: current.stepId } }) : null;
        const answered = await tx.form.findUniqueOrThrow({ where: { id: current.id }, include: formInclude });
        const dto = toFormDTO(answered, step?.index ?? null);
        uow.emit("form-answered", { form: dto });
        if (current.planId && step) {
          await engine.applyPlanEvent(tx, uow, {
            planId: current.planId,
            event: { type: "form-answered", stepIndex: step.index, summary: formatFormAnswer(spec, shown), forAgent },
            bumpVersion: true, // a form changed: see transactionRequired (executor/unit-of-work.ts)
          });
        } else if (current.runId) {
          const blocked = await tx.run.findUnique({ where: { id: current.runId }, include: { agent: true } });
          if (blocked?.agent && blocked.status === "blocked") {
            await engine.queueRun(tx, uow, {
              id: randomUUID(),
              conversationId: blocked.conversationId,
              agent: blocked.agent,
              kind: "mention",
              input: blocked.input,
              request: await engine.resumeRequest(tx, { ...blocked, planId: null }),
              resume: { previousRunId: blocked.id, answer: forAgent?.answer ?? formatFormAnswer(spec, shown), secrets },
              triggerMessageId: blocked.triggerMessageId,
            });
          }
        }
        return dto;
      });
    },
  };
}
