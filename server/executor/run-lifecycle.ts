/**
 * A run's life after its row commits: gather its context, let the agent runtime work
 * (outside any lock), then record what happened under the conversation's lock, and
 * tell the plan. The runtime reports; only this module turns a report into facts.
 */
import { z } from "zod";
import type { Prisma } from "../generated/prisma/client.ts";
import { formatFormAnswer } from "../core/form-schema.ts";
import { validatePlan, validateAppendedSteps } from "../core/validate-plan.ts";
import { PlanValidationError } from "../core/errors.ts";
import type { CommanderDecision, FormSpec, PlanEvent, RunOutcome } from "../core/types.ts";
import { insertPlan, loadPlan } from "../adapters/prisma/plan-repository.ts";
import { messageInclude, toMessageDTO, toPlanDTO, toRunDTO } from "../adapters/prisma/serializers.ts";
import type { AgentRunResult, RunPurpose, RunRequest } from "./ports.ts";
import type { ExecutorContext } from "./context.ts";
import { openForm, reconcilePlan } from "./plan-effects.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { RunKind } from "./run-records.ts";

type Tx = Prisma.TransactionClient;

export type InConversation = <T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>) => Promise<T>;

export interface RunLogEntry {
  phase: string;
  message: string;
  data?: unknown;
}

/** Builds what the agent runtime needs for one run. Reads only; no lock. */
export async function loadRunRequest(
  context: ExecutorContext,
  runId: string,
  signal: AbortSignal,
): Promise<RunRequest | null> {
  const run = await context.prisma.run.findUnique({
    where: { id: runId },
    include: { agent: true, step: true, plan: { select: { request: true, requestMessageId: true } } },
  });
  if (!run || !run.agent || run.status !== "running") return null;
  const roster = await context.prisma.conversationAgent.findMany({
    where: { conversationId: run.conversationId },
    include: { agent: { select: { handle: true, name: true, role: true } } },
  });
  const requestMessageId = run.plan?.requestMessageId ?? run.triggerMessageId;
  const attachments = requestMessageId
    ? await context.prisma.artifact.findMany({
        where: { messageId: requestMessageId },
        select: { id: true, name: true, mediaType: true, size: true, untrusted: true },
      })
    : [];
  let resume: RunRequest["resume"];
  if (run.resumesRunId) {
    const form = await context.prisma.form.findFirst({
      where: { runId: run.resumesRunId },
      include: { answer: true },
      orderBy: { createdAt: "desc" },
    });
    if (form?.answer) {
      const spec = { title: form.title, fields: form.fields as unknown as FormSpec["fields"] };
      resume = { previousRunId: run.resumesRunId, answer: formatFormAnswer(spec, form.answer.values as Record<string, never>) };
    }
  }
  const purpose = await purposeOf(context, run.kind as RunKind, run.stepId);
  const agent = run.agent;
  return {
    runId: run.id,
    conversationId: run.conversationId,
    agent: {
      id: agent.id,
      handle: agent.handle,
      name: agent.name,
      role: agent.role,
      systemPrompt: agent.systemPrompt,
      model: agent.model,
      allowedTools: agent.allowedTools,
      skills: agent.skills,
      concurrency: agent.concurrency,
      mcpServers: agent.mcpServers,
    },
    purpose,
    input: run.input,
    request: { text: run.plan?.request ?? run.input, attachments },
    step: run.step && run.planId ? { planId: run.planId, stepIndex: run.step.index, title: run.step.title } : undefined,
    roster: roster.map((entry) => entry.agent),
    resume,
    signal,
  };
}

async function purposeOf(context: ExecutorContext, kind: RunKind, stepId: string | null): Promise<RunPurpose> {
  switch (kind) {
    case "mention":
    case "step":
      return { kind: "mention" };
    case "chat":
      return { kind: "commander-chat" };
    case "commander-step":
      return { kind: "commander-step" };
    case "decision": {
      const step = stepId ? await context.prisma.planStep.findUnique({ where: { id: stepId } }) : null;
      return {
        kind: "commander-decision",
        failedStep: {
          index: step?.index ?? 0,
          title: step?.title ?? "",
          assignee: step?.assignee ?? "",
          failureReason: step?.failureReason ?? "unknown",
        },
      };
    }
  }
}

const decisionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retry"), input: z.string().optional(), assignee: z.string().optional() }),
  z.object({ kind: z.literal("skip"), reason: z.string().optional() }),
  z.object({ kind: z.literal("abort"), reason: z.string().optional() }),
  z.object({ kind: z.literal("append"), steps: z.array(z.unknown()).min(1) }),
]);

/** Records a finished run and lets its plan (if any) react, all in one locked transaction. */
export async function finishRun(
  context: ExecutorContext,
  inConversation: InConversation,
  input: { runId: string; conversationId: string; result: AgentRunResult; logs: RunLogEntry[] },
): Promise<void> {
  const { runId, result } = input;
  await inConversation(input.conversationId, async (tx, uow) => {
    const run = await tx.run.findUnique({ where: { id: runId }, include: { agent: true, step: true } });
    // Cancelled, lost to another process, or already recorded: the facts are settled.
    if (!run || run.status !== "running" || !run.agent) return;
    const now = new Date(context.clock.now());
    const status = result.kind === "ok" ? "succeeded" : result.kind === "blocked" ? "blocked" : "failed";
    const updated = await tx.run.update({
      where: { id: runId },
      data: {
        status,
        endedAt: now,
        error: result.kind === "failed" ? result.reason : null,
        tokensIn: result.usage.tokensIn,
        tokensOut: result.usage.tokensOut,
        cost: result.usage.cost,
        // leaseOwner stays: which process ran it is worth keeping for the history
        leaseExpiresAt: null,
      },
    });
    uow.freedAgents.add(run.agent.handle);
    uow.emit("run-updated", { run: toRunDTO(updated, { agentHandle: run.agent.handle, stepIndex: run.step?.index ?? null }) });
    if (run.planId && input.logs.length > 0) {
      await tx.stepEvent.createMany({
        data: input.logs.map((entry) => ({
          planId: run.planId!,
          stepIndex: run.step?.index ?? null,
          runId,
          phase: entry.phase,
          message: entry.message.slice(0, 4000),
          data: entry.data === undefined ? undefined : (JSON.parse(JSON.stringify(entry.data)) as Prisma.InputJsonValue),
        })),
      });
    }

    const kind = run.kind as RunKind;
    const postAgentMessage = async (body: string, messageKind: "result" | "decision" | "plan" | "error" | "text", planId?: string) => {
      if (!body.trim()) return;
      const message = await tx.message.create({
        data: {
          conversationId: run.conversationId,
          authorKind: "agent",
          authorAgentId: run.agentId,
          kind: messageKind,
          body,
          planId: planId ?? run.planId,
          stepId: run.stepId,
          runId,
        },
        include: messageInclude,
      });
      uow.emit("message-created", { message: toMessageDTO(message) });
    };

    if (result.kind === "blocked") {
      if (kind === "decision" || kind === "chat" || kind === "commander-step") {
        // The commander cannot wait on a form here: treat as a real failure of the run.
        return reportPlanOutcome({ kind: "failed", transient: false, reason: "the commander asked for input it cannot wait for" });
      }
      await openForm(context, tx, uow, {
        conversationId: run.conversationId,
        planId: run.planId,
        stepId: run.stepId,
        stepIndex: run.step?.index ?? null,
        runId,
        body: result.text || result.form.title,
        spec: result.form,
        authorAgentId: run.agentId ?? undefined,
      });
      return reportPlanOutcome({ kind: "blocked" });
    }

    if (result.kind === "failed") {
      await postAgentMessage(`⚠️ ${result.transient ? "Temporary failure" : "Failed"}: ${result.reason}`, "error");
      if (kind === "decision") return decide({ kind: "abort", reason: `the commander could not decide: ${result.reason}` });
      return reportPlanOutcome({ kind: "failed", transient: result.transient, reason: result.reason });
    }

    // ok
    if (kind === "decision") {
      await postAgentMessage(result.text, "decision");
      const parsed = decisionSchema.safeParse(result.decision);
      if (!parsed.success) return decide({ kind: "abort", reason: "the commander gave no valid decision" });
      if (parsed.data.kind === "append") {
        const plan = await loadPlan(tx, run.planId!);
        try {
          const steps = validateAppendedSteps({
            existing: plan!.state,
            raw: parsed.data.steps,
            assignees: await conversationHandles(tx, run.conversationId),
            limits: context.config.planLimits,
          });
          return decide({ kind: "append", steps });
        } catch (error) {
          const reason = error instanceof PlanValidationError ? error.message : String(error);
          await postAgentMessage(`The appended steps were rejected: ${reason}`, "error");
          return decide({ kind: "abort", reason: `appended steps were invalid: ${reason}` });
        }
      }
      return decide(parsed.data as CommanderDecision);
    }

    if (kind === "chat" && result.plan !== undefined) {
      try {
        const spec = validatePlan({
          raw: result.plan,
          assignees: await conversationHandles(tx, run.conversationId),
          limits: context.config.planLimits,
        });
        const trigger = run.triggerMessageId
          ? await tx.message.findUnique({ where: { id: run.triggerMessageId }, select: { body: true } })
          : null;
        const loaded = await insertPlan(tx, {
          conversationId: run.conversationId,
          spec,
          request: trigger?.body ?? run.input,
          requestMessageId: run.triggerMessageId ?? undefined,
        });
        const plan = await tx.plan.findUniqueOrThrow({ where: { id: loaded.state.id }, include: { steps: true } });
        uow.emit("plan-created", { plan: toPlanDTO(plan) });
        await postAgentMessage(result.text || `Plan: **${spec.title}**`, "plan", plan.id);
        await reconcilePlan(context, tx, uow, { planId: plan.id, event: { type: "plan-created" } });
      } catch (error) {
        if (!(error instanceof PlanValidationError)) throw error;
        await postAgentMessage(`I could not make a valid plan: ${error.message}`, "error");
      }
      return;
    }

    await postAgentMessage(result.text, run.planId ? "result" : "text");
    return reportPlanOutcome({ kind: "ok", summary: result.summary, files: result.files, untrusted: result.untrusted });

    async function reportPlanOutcome(outcome: RunOutcome) {
      if (!run?.planId || !run.step) return;
      const event: PlanEvent = { type: "run-finished", stepIndex: run.step.index, runId, outcome };
      await reconcilePlan(context, tx, uow, { planId: run.planId, event });
    }
    async function decide(decision: CommanderDecision) {
      if (!run?.planId || !run.step) return;
      await reconcilePlan(context, tx, uow, {
        planId: run.planId,
        event: { type: "commander-decision", stepIndex: run.step.index, decision },
      });
    }
  });
}

/** Handles of the sub-agents in a conversation: who a plan may assign. */
export async function conversationHandles(tx: Tx, conversationId: string): Promise<Set<string>> {
  const agents = await tx.conversationAgent.findMany({
    where: { conversationId },
    include: { agent: { select: { handle: true } } },
  });
  return new Set(agents.map((entry) => entry.agent.handle));
}
