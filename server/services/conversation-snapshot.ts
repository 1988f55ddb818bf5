/**
 * What a browser reads to draw a conversation, bounded so that a conversation of months
 * opens as fast as a new one: the newest messages (older ones page back), every plan but
 * only the steps someone is likely to look at, the forms still open and those of the
 * messages sent (a page of earlier messages brings its own), the runs still going, and
 * what the ended runs cost as totals the database sums rather than rows the browser sums.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { formInclude, messageInclude, toFormDTO, toMessageDTO, toPlanDTO, toRunDTO } from "../adapters/prisma/serializers.ts";
import { notFound } from "../protocol/errors.ts";
import { isCommanderReplyMode } from "../core/addressing.ts";
import { ENDED_RUN_STATUSES, isTerminalPlan } from "../core/status.ts";
import type { FormDTO, MessageDTO } from "../protocol/dto.ts";
import type { Snapshot, SnapshotPlan, UsageTotal } from "../protocol/rest/conversations.ts";
import { SNAPSHOT_MESSAGES } from "../protocol/limits.ts";

/**
 * Reads the snapshot in one repeatable-read transaction, so that every part of it and
 * `lastSeq` describe the same moment (under read committed, PostgreSQL's default, each
 * statement sees its own). The caller checks membership.
 */
export function readSnapshot(prisma: PrismaClient, conversationId: string): Promise<Snapshot> {
  return prisma.$transaction((tx) => readSnapshotIn(tx, conversationId), { isolationLevel: "RepeatableRead" });
}

async function readSnapshotIn(tx: Prisma.TransactionClient, conversationId: string): Promise<Snapshot> {
  const conversation = await tx.conversation.findUnique({
    where: { id: conversationId },
    include: {
      // a disabled agent is not offered in the composer's @-list
      agents: {
        where: { agent: { disabledAt: null } },
        include: { agent: { select: { id: true, handle: true, name: true, role: true, model: true } } },
      },
      memberships: { include: { user: { select: { id: true, name: true, email: true } } } },
    },
  });
  if (!conversation) throw notFound("conversation");
  const ended = { conversationId, status: { in: [...ENDED_RUN_STATUSES] } };
  // one after another: a transaction is one connection, which runs one statement at a time
  // anyway (and PostgreSQL's driver refuses a second while the first runs from its next version)
  const newest = await messagesBefore(tx, { conversationId, limit: SNAPSHOT_MESSAGES });
  const plans = await tx.plan.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" } });
  const forms = await formsOf(tx, conversationId, newest.messages, { open: true });
  const runs = await tx.run.findMany({
    where: { conversationId, status: { notIn: [...ENDED_RUN_STATUSES] } },
    orderBy: { createdAt: "asc" },
    include: { agent: { select: { handle: true } }, step: { select: { index: true } } },
  });
  const usage = await tx.run.groupBy({
    by: ["planId"],
    where: ended,
    _sum: { tokensIn: true, tokensOut: true, cost: true },
    _count: { _all: true },
  });
  const estimated = await tx.run.groupBy({ by: ["planId"], where: { ...ended, usageEstimated: true }, _count: { _all: true } });

  // steps of the plans a reader sees first: the ones still going, the newest (the plan
  // panel's default) and those the newest messages belong to
  const shown = new Set(newest.messages.flatMap((message) => (message.planId ? [message.planId] : [])));
  const withSteps = new Set(
    plans.filter((plan, at) => !isTerminalPlan(plan.status) || at === plans.length - 1 || shown.has(plan.id)).map((plan) => plan.id),
  );
  const steps = await tx.planStep.findMany({ where: { planId: { in: [...withSteps] } }, orderBy: { index: "asc" } });
  const stepsByPlan = new Map<string, typeof steps>();
  for (const step of steps) {
    const own = stepsByPlan.get(step.planId);
    if (own) own.push(step);
    else stepsByPlan.set(step.planId, [step]);
  }
  const snapshotPlans: SnapshotPlan[] = plans.map((plan) => {
    const dto = toPlanDTO({ ...plan, steps: stepsByPlan.get(plan.id) ?? [] });
    return { ...dto, steps: withSteps.has(plan.id) ? dto.steps : null };
  });

  const estimatedPlans = new Set(estimated.map((row) => row.planId));
  const byPlan: Record<string, UsageTotal> = {};
  const total: UsageTotal = { tokens: 0, cost: 0, runs: 0, estimated: estimated.length > 0 };
  for (const row of usage) {
    const part: UsageTotal = {
      tokens: (row._sum.tokensIn ?? 0) + (row._sum.tokensOut ?? 0),
      cost: row._sum.cost ?? 0,
      runs: row._count._all,
      estimated: estimatedPlans.has(row.planId),
    };
    if (row.planId) byPlan[row.planId] = part;
    total.tokens += part.tokens;
    total.cost += part.cost;
    total.runs += part.runs;
  }

  return {
    conversation: {
      id: conversation.id,
      title: conversation.title,
      commanderReplies: isCommanderReplyMode(conversation.commanderReplies) ? conversation.commanderReplies : "auto",
      archivedAt: conversation.archivedAt?.toISOString() ?? null,
    },
    lastSeq: conversation.lastSeq,
    agents: conversation.agents.map((entry) => entry.agent),
    members: conversation.memberships.map((entry) => ({ ...entry.user, role: entry.role })),
    messages: newest.messages,
    hasEarlierMessages: newest.hasEarlier,
    plans: snapshotPlans,
    forms,
    runs: runs.map((run) => toRunDTO(run, { agentHandle: run.agent?.handle ?? null, stepIndex: run.step?.index ?? null })),
    endedUsage: { total, byPlan },
  };
}

/**
 * The forms `messages` show (a form is drawn in the message that asks it), and with
 * `open` every form of the conversation still waiting for an answer, wherever its
 * message is: the tab counts them. Each with its step's index.
 */
export async function formsOf(
  db: Pick<PrismaClient, "form" | "planStep">,
  conversationId: string,
  messages: MessageDTO[],
  { open }: { open: boolean },
): Promise<FormDTO[]> {
  const shown = messages.flatMap((message) => (message.formId ? [message.formId] : []));
  if (shown.length === 0 && !open) return [];
  const forms = await db.form.findMany({
    where: { conversationId, OR: [{ id: { in: shown } }, ...(open ? [{ status: "open" as const }] : [])] },
    orderBy: { createdAt: "asc" },
    include: formInclude,
  });
  const stepIds = forms.flatMap((form) => (form.stepId ? [form.stepId] : []));
  const steps = stepIds.length ? await db.planStep.findMany({ where: { id: { in: stepIds } }, select: { id: true, index: true } }) : [];
  const indexOf = new Map(steps.map((step) => [step.id, step.index]));
  return forms.map((form) => toFormDTO(form, form.stepId ? (indexOf.get(form.stepId) ?? null) : null));
}

/**
 * Up to `limit` of a conversation's messages, the newest ones (before `before`, when
 * given), oldest first; `hasEarlier` when older ones remain. Ordered by time, then id,
 * so messages made in the same millisecond page without gaps or repeats.
 */
export async function messagesBefore(
  db: Pick<PrismaClient, "message">,
  input: { conversationId: string; limit: number; before?: { id: string; createdAt: Date } },
): Promise<{ messages: MessageDTO[]; hasEarlier: boolean }> {
  const { before } = input;
  const rows = await db.message.findMany({
    where: {
      conversationId: input.conversationId,
      ...(before && { OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }] }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    include: messageInclude,
  });
  return { messages: rows.slice(0, input.limit).reverse().map(toMessageDTO), hasEarlier: rows.length > input.limit };
}
