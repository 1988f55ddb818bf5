/**
 * Creating runs: every agent run, whatever started it, begins here. The row is
 * written `queued` inside the caller's transaction; a worker with room in the run's
 * pools claims it (run-queue.ts) — usually this very process in the same statement.
 * The launch (everything the agent runtime needs) is kept in memory, so starting a
 * run claimed here costs no further reads; another process rebuilds it from the rows.
 */
import type { Agent, Prisma } from "../generated/prisma/client.ts";
import type { RunDTO } from "../protocol/dto.ts";
import { runDTO as buildRunDTO } from "../protocol/dto-builders.ts";
import type { AgentProfile, ArtifactRef, ResumeInput, RunPurpose } from "../ports/executor.ts";
import type { ExecutorContext } from "./context.ts";
import { sqlWrites } from "../adapters/prisma/write-batch.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import type { RunKind, RunLaunch } from "./run-launch.ts";
import type { ModelReason } from "../core/run-model.ts";

type Tx = Prisma.TransactionClient;

export type { RunKind, RunLaunch } from "./run-launch.ts";

export function toAgentProfile(agent: Agent): AgentProfile {
  return {
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
  };
}

function purposeFor(kind: RunKind, failedStep?: Extract<RunPurpose, { kind: "commander-decision" }>["failedStep"]): RunPurpose {
  switch (kind) {
    case "mention":
    case "step":
      return { kind: "mention" };
    case "chat":
      return { kind: "commander-chat" };
    case "commander-step":
      return { kind: "commander-step" };
    case "decision":
      return {
        kind: "commander-decision",
        failedStep: failedStep ?? { index: 0, title: "", assignee: "", input: "", failureReason: "unknown" },
      };
    default:
      throw new Error(`unknown run kind ${String(kind satisfies never)}`);
  }
}

/**
 * The files attached to a request message. They are fixed once the message exists,
 * so every step of a plan reuses one read.
 */
async function requestAttachments(context: ExecutorContext, tx: Tx, messageId: string | null): Promise<ArtifactRef[]> {
  if (!messageId) return [];
  const cached = context.attachments.get(messageId);
  if (cached) return cached;
  const found = await tx.artifact.findMany({
    where: { messageId },
    select: { id: true, name: true, mediaType: true, size: true, untrusted: true },
  });
  context.attachments.set(messageId, found);
  if (context.attachments.size > 512) context.attachments.delete(context.attachments.keys().next().value!);
  return found;
}

export interface NewRun {
  id: string;
  conversationId: string;
  agent: Agent;
  kind: RunKind;
  input: string;
  /** the original request and the message whose attachments travel with it */
  request: { text: string; messageId: string | null };
  plan?: { planId: string; stepId: string; stepIndex: number; stepTitle: string } | null;
  attempt?: number;
  triggerMessageId?: string | null;
  resume?: ResumeInput;
  failedStep?: Extract<RunPurpose, { kind: "commander-decision" }>["failedStep"];
  /** a retry in backoff: it stays queued, unclaimed, until then */
  notBefore?: Date;
  /** why the run is on `agent.model`; unset: the agent's own model */
  modelReason?: ModelReason;
}

export async function createRun(context: ExecutorContext, tx: Tx, uow: UnitOfWork, input: NewRun): Promise<RunLaunch> {
  const now = context.stamp();
  uow.batch.add(
    sqlWrites.insertRun({
      id: input.id,
      conversationId: input.conversationId,
      agentId: input.agent.id,
      planId: input.plan?.planId ?? null,
      stepId: input.plan?.stepId ?? null,
      kind: input.kind,
      attempt: input.attempt ?? 1,
      input: input.input,
      model: input.agent.model,
      modelReason: input.modelReason ?? "agent",
      triggerMessageId: input.triggerMessageId ?? null,
      resumesRunId: input.resume?.previousRunId ?? null,
      createdAt: now,
      notBefore: input.notBefore ?? null,
    }),
  );
  const built = await buildLaunch(context, tx, input, now);
  const launch = input.notBefore ? { ...built, notBefore: input.notBefore } : built;
  uow.emit("run-updated", { run: runDTO(launch, { status: "queued", endedAt: null, error: null, usage: null }) });
  uow.runsCreated.push(launch);
  return launch;
}

/** What the agent runtime needs to start a run (startedAt is the claim's, set when claimed). */
export async function buildLaunch(context: ExecutorContext, tx: Tx, input: NewRun, createdAt: Date): Promise<RunLaunch> {
  const attachments = await requestAttachments(context, tx, input.request.messageId);
  // the roster an agent is shown (the commander assigns from it): disabled agents are left out
  const roster = await context.agents.available(tx, input.conversationId);
  return {
    kind: input.kind,
    agent: input.agent,
    modelReason: input.modelReason ?? "agent",
    planId: input.plan?.planId ?? null,
    stepId: input.plan?.stepId ?? null,
    stepIndex: input.plan?.stepIndex ?? null,
    attempt: input.attempt ?? 1,
    startedAt: createdAt,
    createdAt,
    triggerMessageId: input.triggerMessageId ?? null,
    request: {
      runId: input.id,
      conversationId: input.conversationId,
      agent: toAgentProfile(input.agent),
      purpose: purposeFor(input.kind, input.failedStep),
      input: input.input,
      request: { text: input.request.text, attachments },
      step: input.plan ? { planId: input.plan.planId, stepIndex: input.plan.stepIndex, title: input.plan.stepTitle } : undefined,
      roster: roster.map((agent) => ({
        handle: agent.handle,
        name: agent.name,
        role: agent.role,
        description: agent.description,
        skills: agent.skills,
        tools: agent.allowedTools,
        model: agent.model,
      })),
      resume: input.resume,
      triggerMessageId: input.triggerMessageId ?? undefined,
      attempt: input.attempt ?? 1,
    },
  };
}

/** The wire shape of a run, from its launch and how it ended so far (built in protocol/dto-builders.ts). */
export function runDTO(
  launch: RunLaunch,
  outcome: {
    status: RunDTO["status"];
    endedAt: Date | null;
    error: string | null;
    usage: { tokensIn: number; tokensOut: number; cost: number; estimated?: boolean } | null;
  },
): RunDTO {
  return buildRunDTO({
    id: launch.request.runId,
    conversationId: launch.request.conversationId,
    agentHandle: launch.agent.handle,
    planId: launch.planId,
    stepIndex: launch.stepIndex,
    kind: launch.kind,
    attempt: launch.attempt,
    model: launch.agent.model,
    modelReason: launch.modelReason,
    startedAt: launch.startedAt,
    ...outcome,
  });
}
