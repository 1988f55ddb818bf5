/**
 * The run queue: every run is created `queued` and becomes `running` only when a
 * worker claims it (`baton_claim_runs`, shipped in prisma/migrations) — the one place where
 * agent and model pools are counted, under per-pool locks, so they hold exactly
 * across plans, conversations and processes, and waiters are served oldest first.
 * A run claimed by the process that created it starts from the launch it kept in
 * memory; any other process rebuilds the launch from the rows.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import type { ClaimedRun, ClaimRequest } from "../adapters/prisma/write-batch.ts";
import { formatFormAnswer, type FormValue } from "../core/form-schema.ts";
import { runKindOf, type FormSpec } from "../core/types.ts";
import { modelReasonOf } from "../core/run-model.ts";
import type { ExecutorContext } from "./context.ts";
import { buildLaunch, type RunLaunch } from "./run-records.ts";

type Tx = Prisma.TransactionClient;

/** The notification channel a unit signals when runs wait in a pool it touched. */
export const RUNS_CHANNEL = "baton_runs";

/** Claims queued runs for this process (all pools, or only `agentIds`' pools). */
export async function claimRuns(
  prisma: Pick<PrismaClient, "$queryRaw">,
  request: ClaimRequest & { agentIds?: string[] },
): Promise<ClaimedRun[]> {
  const rows = await prisma.$queryRaw<ClaimedRun[]>`
    SELECT "id", "conversationId", "startedAt" FROM baton_claim_runs(
      ${request.owner}, ${request.leaseMs}::integer, ${request.max}::integer,
      ${JSON.stringify(request.modelLimits)}::jsonb, ${request.agentIds ?? null}::text[])`;
  return rows;
}

type RunWithStep = {
  kind: string;
  planId: string | null;
  step: {
    id: string;
    index: number;
    title: string;
    assignee: string;
    input: string;
    renderedInput: string | null;
    failureReason: string | null;
  } | null;
};

/** The plan step a run belongs to, and (for a decision) the failure it decides: as stored on the rows. */
export function runContextOf(run: RunWithStep) {
  return {
    plan: run.step && run.planId ? { planId: run.planId, stepId: run.step.id, stepIndex: run.step.index, stepTitle: run.step.title } : null,
    failedStep:
      run.kind === "decision" && run.step
        ? {
            index: run.step.index,
            title: run.step.title,
            assignee: run.step.assignee,
            input: run.step.renderedInput ?? run.step.input,
            failureReason: run.step.failureReason ?? "unknown",
          }
        : undefined,
  };
}

/**
 * The request a run answers, as stored: its plan's request, else the body of the
 * message that started it (else its own input), with the message whose attachments
 * travel with it.
 */
export async function storedRequest(
  tx: Tx,
  run: { planId: string | null; triggerMessageId: string | null; input: string },
): Promise<{ text: string; messageId: string | null }> {
  const plan = run.planId
    ? await tx.plan.findUnique({ where: { id: run.planId }, select: { request: true, requestMessageId: true } })
    : null;
  if (plan) return { text: plan.request, messageId: plan.requestMessageId };
  const trigger = run.triggerMessageId
    ? await tx.message.findUnique({ where: { id: run.triggerMessageId }, select: { body: true } })
    : null;
  return { text: trigger?.body ?? run.input, messageId: run.triggerMessageId };
}

/**
 * The launch of a run this process claimed but did not create, rebuilt from its row:
 * the request it answers, the form answer it resumes with, the failure a decision is
 * about. Null when the run is gone or no longer running (cancelled meanwhile).
 */
export async function loadLaunch(context: ExecutorContext, runId: string): Promise<RunLaunch | null> {
  const tx = context.prisma as unknown as Tx;
  const run = await context.prisma.run.findUnique({
    where: { id: runId },
    include: { agent: true, step: true, plan: { select: { request: true, requestMessageId: true } } },
  });
  if (!run || !run.agent || run.status !== "running") return null;
  const trigger =
    !run.plan && run.triggerMessageId
      ? await context.prisma.message.findUnique({ where: { id: run.triggerMessageId }, select: { body: true } })
      : null;
  const kind = runKindOf(run);
  const launch = await buildLaunch(
    context,
    tx,
    {
      id: run.id,
      conversationId: run.conversationId,
      // the model the run was queued for: a hedge twin runs on the agent's alternate
      agent: { ...run.agent, model: run.model },
      modelReason: modelReasonOf(run.modelReason),
      kind,
      input: run.input,
      request: run.plan
        ? { text: run.plan.request, messageId: run.plan.requestMessageId }
        : { text: trigger?.body ?? run.input, messageId: run.triggerMessageId },
      ...runContextOf(run),
      attempt: run.attempt,
      triggerMessageId: run.triggerMessageId,
      resume: run.resumesRunId ? { previousRunId: run.resumesRunId, answer: await formAnswerOf(context, run.resumesRunId) } : undefined,
    },
    run.createdAt,
  );
  return { ...launch, startedAt: run.startedAt ?? run.createdAt };
}

/** The answer to the form a blocked run raised, worded as the session first received it. */
async function formAnswerOf(context: ExecutorContext, blockedRunId: string): Promise<string> {
  const form = await context.prisma.form.findFirst({
    where: { runId: blockedRunId },
    include: { answer: true },
    orderBy: { createdAt: "desc" },
  });
  if (!form?.answer) return "";
  const spec: FormSpec = { title: form.title, fields: form.fields as unknown as FormSpec["fields"] };
  return formatFormAnswer(spec, form.answer.values as Record<string, FormValue>);
}
