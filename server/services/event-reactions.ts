/**
 * Reactions: an outside event (a CI result, a review comment, any JSON) routed into
 * the conversation to the agent that owns the work, and waking it. The event is
 * posted as a visible system message that @-mentions the owner, so it starts an
 * ordinary run (DESIGN rule 2), with the payload fenced as untrusted data.
 */
import { randomUUID } from "node:crypto";
import { fenceUntrusted } from "../core/fence.ts";
import { COMMANDER_ASSIGNEE, USER_ASSIGNEE } from "../core/types.ts";
import type { MessageDTO } from "../protocol/dto.ts";
import { conflict, invalidInput, notFound } from "../protocol/errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { toStorableText } from "../core/text.ts";
import type { Engine } from "./engine.ts";
import { disabledReason } from "../executor/agent-directory.ts";

export const MAX_REACTION_PAYLOAD_CHARS = 64_000;

export interface Reaction {
  conversationId: string;
  /** who sent it, e.g. "ci" or "github"; shown, and named in the fence */
  source: string;
  /**
   * the work it is about: a plan step (its assignee owns it), a workspace step's branch
   * (`baton/<plan>-<step>`, the same), or an agent
   */
  target: { planId: string; stepIndex: number } | { branch: string } | { agent: string };
  payload: unknown;
  /** a signed delivery: recorded with the reaction's effects, so a replay is refused (409) */
  delivery?: { id: string; expiresAt: Date } | null;
}

export async function routeReaction(engine: Engine, reaction: Reaction): Promise<{ message: MessageDTO; runId: string; agent: string }> {
  const source =
    reaction.source
      .toLowerCase()
      .replace(/[^a-z0-9_.:-]/g, "-")
      .slice(0, 40) || "webhook";
  const raw = typeof reaction.payload === "string" ? reaction.payload : JSON.stringify(reaction.payload, null, 2);
  // a webhook body is outside text: NUL or half an emoji in it must not make the message unstorable
  const text = raw === undefined ? undefined : toStorableText(raw);
  if (text === undefined || text.length > MAX_REACTION_PAYLOAD_CHARS) {
    throw invalidInput(`payload: must be JSON of at most ${MAX_REACTION_PAYLOAD_CHARS} characters`);
  }
  return engine.inConversation(reaction.conversationId, async (tx, uow) => {
    if (reaction.delivery) await recordDelivery(tx, reaction.delivery, engine.now());
    const roster = await engine.agents.roster(tx, reaction.conversationId);
    if (roster.length === 0 && !(await tx.conversation.findUnique({ where: { id: reaction.conversationId }, select: { id: true } }))) {
      throw notFound("conversation");
    }
    let handle: string;
    let about = "";
    // a reaction about a step is posted as about it (planId, stepId): a workspace agent woken by it works in the step's slot
    let aboutStep: { planId: string; stepId: string } | null = null;
    if ("agent" in reaction.target) {
      handle = reaction.target.agent.replace(/^@/, "").toLowerCase();
    } else {
      const { planId, stepIndex } = await stepOfTarget(tx, reaction.conversationId, reaction.target);
      const step = await tx.planStep.findFirst({
        where: { planId, index: stepIndex, plan: { conversationId: reaction.conversationId } },
        select: { id: true, assignee: true, title: true },
      });
      if (!step) throw notFound(`step ${stepIndex} of that plan`);
      handle = step.assignee === COMMANDER_ASSIGNEE || step.assignee === USER_ASSIGNEE ? "" : step.assignee;
      about = ` about step ${stepIndex} (${step.title})${"branch" in reaction.target ? ` on ${reaction.target.branch}` : ""}`;
      if (handle) aboutStep = { planId, stepId: step.id };
    }
    const agent = handle
      ? roster.find((candidate) => candidate.handle === handle)
      : await engine.agents.commanderFor(tx, reaction.conversationId);
    if (!agent) throw invalidInput(`target: @${handle} is not an agent in this conversation`);
    if (agent.disabledAt !== null) throw conflict(`target: ${disabledReason(agent.handle)}`);

    const fenced = fenceUntrusted(text, `reaction:${source}`);
    const body = `@${agent.handle} Reaction from **${source}**${about}:\n\n${fenced}`;
    const message = engine.queueMessage(uow, {
      conversationId: reaction.conversationId,
      author: { kind: "system" },
      kind: "text",
      body,
      mentions: [{ agentId: agent.id, handle: agent.handle }],
      ...(aboutStep ?? {}),
    });
    const runId = randomUUID();
    await engine.queueRun(tx, uow, {
      id: runId,
      conversationId: reaction.conversationId,
      agent,
      kind: agent.role === "commander" ? "chat" : "mention",
      input: body,
      request: { text: body, messageId: null },
      triggerMessageId: message.id,
    });
    return { message, runId, agent: agent.handle };
  });
}

/** The plan step a target names: given, or the workspace step whose branch it names (in this conversation). */
async function stepOfTarget(
  tx: Prisma.TransactionClient,
  conversationId: string,
  target: { planId: string; stepIndex: number } | { branch: string },
): Promise<{ planId: string; stepIndex: number }> {
  if (!("branch" in target)) return target;
  const slot = await tx.slot.findFirst({
    where: { branch: target.branch.replace(/^refs\/heads\//, "") },
    select: { planId: true, stepIndex: true },
  });
  const plan = slot ? await tx.plan.findUnique({ where: { id: slot.planId }, select: { conversationId: true } }) : null;
  // a branch of another conversation's plan is as unknown as one that does not exist
  if (!slot || plan?.conversationId !== conversationId) throw notFound(`branch ${target.branch}`);
  return slot;
}

/**
 * Remembers a signed delivery until its timestamp leaves the window, in the reaction's
 * own transaction: a delivery that fails (bad target) may be sent again, one that
 * succeeded cannot be replayed. Expired ids are pruned on the way.
 */
async function recordDelivery(tx: Prisma.TransactionClient, delivery: { id: string; expiresAt: Date }, now: Date): Promise<void> {
  await tx.webhookDelivery.deleteMany({ where: { expiresAt: { lt: now } } });
  const { count } = await tx.webhookDelivery.createMany({ data: [delivery], skipDuplicates: true });
  if (count === 0) throw conflict(`delivery ${delivery.id} was already received`);
}
