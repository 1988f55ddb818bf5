/**
 * Inside a conversation's locked transaction: load a plan, ask the core what to do
 * about one event, write the decision back and carry out its commands. Dispatching
 * a step to a sub-agent is an ordinary @-mention message from the commander, which
 * starts a run through the same entry point as a person's mention (DESIGN rule 2).
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { reconcile } from "../core/reconcile.ts";
import type { PlanCommand, PlanEvent } from "../core/types.ts";
import { loadCapacity, loadPlan, savePlan, type LoadedPlan } from "../adapters/prisma/plan-repository.ts";
import { formInclude, messageInclude, toFormDTO, toMessageDTO, toStepDTO } from "../adapters/prisma/serializers.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { createRun, type RunKind } from "./run-records.ts";
import type { ExecutorContext } from "./context.ts";

type Tx = Prisma.TransactionClient;

/** Feeds one event to the core for one plan and performs what it decides. */
export async function reconcilePlan(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { planId: string; event: PlanEvent },
): Promise<LoadedPlan | null> {
  const loaded = await loadPlan(tx, input.planId);
  if (!loaded) return null;
  const handles = [...new Set(loaded.state.steps.map((step) => step.assignee))];
  const capacity = await loadCapacity(tx, {
    planId: loaded.state.id,
    handles,
    modelConcurrency: context.config.modelConcurrency,
  });
  const result = reconcile({
    plan: loaded.state,
    event: input.event,
    now: context.clock.now(),
    random: context.random,
    capacity,
    newRunId: randomUUID,
  });
  const stepIds = await savePlan(tx, loaded, result.plan, result.changedSteps);
  const current: LoadedPlan = { ...loaded, state: result.plan, stepIds };

  if (result.log.length > 0) {
    await tx.stepEvent.createMany({
      data: result.log.map((line) => ({
        planId: loaded.state.id,
        stepIndex: line.stepIndex,
        phase: "reconcile",
        message: line.message,
      })),
    });
  }
  for (const command of result.commands) {
    await applyCommand(context, tx, uow, current, command);
  }

  if (result.changedSteps.length > 0) {
    const rows = await tx.planStep.findMany({
      where: { planId: loaded.state.id, index: { in: [...new Set(result.changedSteps)] } },
      orderBy: { index: "asc" },
    });
    for (const row of rows) uow.emit("step-updated", { planId: loaded.state.id, step: toStepDTO(row) });
  }
  if (result.plan.status !== loaded.state.status) {
    const ended = ["completed", "failed", "cancelled"].includes(result.plan.status);
    uow.emit("plan-updated", {
      planId: loaded.state.id,
      status: result.plan.status,
      endedAt: ended ? new Date(context.clock.now()).toISOString() : null,
    });
  }
  if (result.plan.status === "running" && hasUndispatchedReadyStep(result.plan, context.clock.now())) {
    uow.capacityWaiters.push({ conversationId: loaded.conversationId, planId: loaded.state.id });
  }
  return current;
}

function hasUndispatchedReadyStep(plan: LoadedPlan["state"], now: number): boolean {
  const byIndex = new Map(plan.steps.map((step) => [step.index, step]));
  return plan.steps.some(
    (step) =>
      step.status === "pending" &&
      (step.retryAt === null || step.retryAt <= now) &&
      step.waitFor.every((index) => ["done", "skipped"].includes(byIndex.get(index)?.status ?? "")),
  );
}

async function applyCommand(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  plan: LoadedPlan,
  command: PlanCommand,
): Promise<void> {
  const planId = plan.state.id;
  switch (command.type) {
    case "dispatch": {
      const stepId = plan.stepIds.get(command.stepIndex)!;
      await tx.planStep.update({ where: { id: stepId }, data: { renderedInput: command.renderedInput } });
      await tx.stepEvent.create({
        data: {
          planId,
          stepIndex: command.stepIndex,
          runId: command.runId,
          phase: "dispatch",
          message: `attempt ${command.attempt} dispatched to ${command.assignee}`,
          data: { renderedInput: command.renderedInput },
        },
      });
      const commander = await context.commanderFor(tx, plan.conversationId);
      if (command.assignee === "commander") {
        // A private wake-up: the commander's answer becomes visible, the nudge does not.
        await createRun(context, tx, uow, {
          id: command.runId,
          conversationId: plan.conversationId,
          agent: commander,
          kind: "commander-step",
          input: command.renderedInput,
          planId,
          stepId,
          attempt: command.attempt,
        });
        return;
      }
      const agent = await tx.agent.findUnique({ where: { handle: command.assignee } });
      if (!agent) throw new Error(`step ${command.stepIndex}: agent @${command.assignee} no longer exists`);
      const message = await tx.message.create({
        data: {
          conversationId: plan.conversationId,
          authorKind: "agent",
          authorAgentId: commander?.id,
          kind: "dispatch",
          body: `@${agent.handle} ${command.renderedInput}`,
          mentions: [{ agentId: agent.id, handle: agent.handle }],
          planId,
          stepId,
          runId: command.runId,
        },
        include: messageInclude,
      });
      uow.emit("message-created", { message: toMessageDTO(message) });
      await createRun(context, tx, uow, {
        id: command.runId,
        conversationId: plan.conversationId,
        agent,
        kind: "step",
        input: command.renderedInput,
        planId,
        stepId,
        attempt: command.attempt,
        triggerMessageId: message.id,
      });
      return;
    }
    case "open-form": {
      const stepId = plan.stepIds.get(command.stepIndex)!;
      const step = plan.state.steps.find((candidate) => candidate.index === command.stepIndex)!;
      await tx.planStep.update({ where: { id: stepId }, data: { renderedInput: command.renderedInput } });
      await openForm(context, tx, uow, {
        conversationId: plan.conversationId,
        planId,
        stepId,
        stepIndex: command.stepIndex,
        runId: null,
        body: command.renderedInput,
        spec: {
          title: step.title,
          fields: [{ name: "answer", label: step.title, type: "textarea", required: true }],
        },
      });
      return;
    }
    case "resume": {
      const stepId = plan.stepIds.get(command.stepIndex)!;
      const blocked = await tx.run.findFirst({
        where: { stepId, status: "blocked" },
        orderBy: { createdAt: "desc" },
        include: { agent: true },
      });
      if (!blocked?.agent) throw new Error(`step ${command.stepIndex}: no blocked run to resume`);
      await createRun(context, tx, uow, {
        id: command.runId,
        conversationId: plan.conversationId,
        agent: blocked.agent,
        kind: blocked.kind as RunKind,
        input: blocked.input,
        planId,
        stepId,
        attempt: command.attempt,
        resumesRunId: blocked.id,
      });
      return;
    }
    case "ask-commander": {
      const stepId = plan.stepIds.get(command.stepIndex)!;
      const commander = await context.commanderFor(tx, plan.conversationId);
      await createRun(context, tx, uow, {
        id: randomUUID(),
        conversationId: plan.conversationId,
        agent: commander,
        kind: "decision",
        input: `Step ${command.stepIndex} failed: ${command.failureReason}`,
        planId,
        stepId,
        attempt: 1,
      });
      return;
    }
    case "schedule-tick":
      uow.ticks.push({ conversationId: plan.conversationId, planId, at: command.at });
      return;
    case "cancel-run": {
      const updated = await tx.run.updateMany({
        where: { id: command.runId, status: { in: ["queued", "running"] } },
        data: { status: "cancelled", endedAt: new Date(context.clock.now()), error: "cancelled" },
      });
      if (updated.count > 0) uow.runsToCancel.push(command.runId);
      return;
    }
    case "plan-ended":
      await tx.stepEvent.create({
        data: { planId, phase: "plan-ended", message: `plan ${command.status}` },
      });
      return;
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled plan command ${JSON.stringify(unhandled)}`);
    }
  }
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
    authorAgentId?: string;
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
  const commander = input.authorAgentId ? null : await context.commanderFor(tx, input.conversationId);
  const message = await tx.message.create({
    data: {
      conversationId: input.conversationId,
      authorKind: "agent",
      authorAgentId: input.authorAgentId ?? commander?.id,
      kind: "form",
      body: input.body,
      planId: input.planId,
      stepId: input.stepId,
      runId: input.runId,
      formId: form.id,
    },
    include: messageInclude,
  });
  uow.emit("form-created", { form: toFormDTO(form, input.stepIndex) });
  uow.emit("message-created", { message: toMessageDTO(message) });
}
