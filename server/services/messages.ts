/**
 * A person's messages: posting one (which may wake agents), and their own messages
 * after sending: edit and delete, and everyone's emoji reactions. Only the author may change a
 * message (403 for anyone else in the conversation, "not found" for anyone outside it,
 * checked here, where the row is read). Both go through the conversation's unit of work
 * so the change is a numbered conversation event every open tab applies live, and a
 * replay after reconnecting carries it too.
 *
 * What already happened stays: a run the message started keeps its input (the run's own
 * copy), an edit wakes nobody new. A deletion keeps a tombstone (the row, its author and
 * time) and clears the body and mentions; its attachments are deleted. The
 * stored events that carried the old text are rewritten in the same transaction
 * (rewriteMessageEvents), so no replay hands it out again, and a stored conversation
 * summary that covers the message is dropped (forgetSummaryCovering), so no agent is
 * shown the old text through it: the next run that needs one summarises again.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { messageInclude, toMessageDTO } from "../adapters/prisma/serializers.ts";
import { rewriteMessageEvents } from "../adapters/prisma/event-log.ts";
import { assertMember, type Actor } from "../access/actor.ts";
import { BatonError, invalidInput, notFound } from "../protocol/errors.ts";
import type { UnitOfWork } from "../executor/unit-of-work.ts";
import { notices } from "../core/notices.ts";
import type { MentionDTO, MessageDTO } from "../protocol/dto.ts";
import { MAX_MESSAGE_CHARS } from "../protocol/limits.ts";
import { personHandles, resolveMentions, tokenizeMentions } from "../protocol/mentions.ts";
import { addressees, isCommanderReplyMode } from "../core/addressing.ts";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../core/text.ts";
import { API_USER_EMAIL } from "../access/actor.ts";
import type { Engine } from "./engine.ts";
import { isReactionEmoji, REACTION_EMOJI, summarizeReactions, type ReactionDTO } from "../protocol/reactions.ts";

type Tx = Prisma.TransactionClient;

/** A posted message, and the agents it named that are not in the conversation (the UI offers to add them). */
export type PostedMessage = MessageDTO & { notInConversation: string[] };

interface Target {
  actor: Actor | null;
  conversationId: string;
  messageId: string;
}

/**
 * Drops the conversation's stored summary (Conversation.historySummary) when it covers a
 * message sent at `createdAt`: it is extended, never recomputed, so it would keep an
 * edited or deleted message's old words for every later run.
 */
async function forgetSummaryCovering(tx: Tx, input: { conversationId: string; createdAt: Date }): Promise<void> {
  await tx.conversation.updateMany({
    where: { id: input.conversationId, historySummaryUpToAt: { gte: input.createdAt } },
    data: { historySummary: null, historySummaryUpToId: null, historySummaryUpToAt: null },
  });
}

/** The message, for its author only; a deleted one is gone for editing. */
async function ownMessage(tx: Tx, { actor, conversationId, messageId }: Target) {
  const known = await assertMember(tx, actor, conversationId);
  const row = await tx.message.findUnique({
    where: { id: messageId },
    select: { conversationId: true, authorKind: true, authorUserId: true, deletedAt: true, mentions: true },
  });
  if (!row || row.conversationId !== conversationId) throw notFound("message");
  if (row.authorKind !== "user" || row.authorUserId !== known.id) {
    throw new BatonError("forbidden", "Only the message's author can change it.");
  }
  return row;
}

export function createMessageServices(engine: Engine) {
  return {
    /**
     * A person's message. Its mentions are the handles the person picked (mentionHandles)
     * and the ones typed in full (tokenised by the one shared function); who answers is
     * decided by core/addressing.ts.
     */
    async postMessage(input: {
      conversationId: string;
      author: { kind: "user"; userId: string };
      body: string;
      mentionHandles?: string[];
      attachmentIds?: string[];
    }): Promise<PostedMessage> {
      const body = input.body.trim();
      if (!body && !input.attachmentIds?.length) throw invalidInput("body: a message needs text or an attachment");
      if (body.length > MAX_MESSAGE_CHARS) throw invalidInput(`body: longer than ${MAX_MESSAGE_CHARS} characters`);
      // every caller (REST, automation API) gets the same answer for text the database would refuse
      if (!isStorableText(body)) throw invalidInput(`body: ${UNSTORABLE_TEXT_MESSAGE}`);
      return engine.inConversation(input.conversationId, (tx, uow) => postInUnit(engine, tx, uow, { ...input, body }));
    },

    async editMessage(input: Target & { body: string }): Promise<MessageDTO> {
      const body = input.body.trim();
      if (!body) throw invalidInput("body: write something, or delete the message");
      if (body.length > MAX_MESSAGE_CHARS) throw invalidInput(`body: longer than ${MAX_MESSAGE_CHARS} characters`);
      return engine.inConversation(input.conversationId, async (tx, uow) => {
        const row = await ownMessage(tx, input);
        if (row.deletedAt) throw new BatonError("conflict", "This message was deleted.");
        // mentions stay the structured ones it was sent with, as far as the new text still names them
        const typed = new Set(tokenizeMentions(body));
        const mentions = ((row.mentions as unknown as MentionDTO[]) ?? []).filter((m) => typed.has(m.handle));
        const updated = await tx.message.update({
          where: { id: input.messageId },
          data: { body, mentions, editedAt: new Date() },
          include: messageInclude,
        });
        const message = toMessageDTO(updated);
        await rewriteMessageEvents(tx, { conversationId: input.conversationId, message });
        await forgetSummaryCovering(tx, { conversationId: input.conversationId, createdAt: updated.createdAt });
        uow.emit("message-edited", { message });
        return message;
      });
    },

    /**
     * Adds (`on`) or removes one of the person's emoji reactions to a message of a
     * conversation they are in; everyone there sees the message's reactions change live.
     * Adding twice or removing what is not there changes nothing.
     */
    async setReaction(input: Target & { emoji: string; on: boolean }): Promise<ReactionDTO[]> {
      if (!isReactionEmoji(input.emoji)) throw invalidInput(`emoji: not one of ${REACTION_EMOJI.join(" ")}`);
      return engine.inConversation(input.conversationId, async (tx, uow) => {
        const person = await assertMember(tx, input.actor, input.conversationId);
        const row = await tx.message.findUnique({ where: { id: input.messageId }, select: { conversationId: true, deletedAt: true } });
        if (!row || row.conversationId !== input.conversationId) throw notFound("message");
        if (row.deletedAt) throw new BatonError("conflict", "This message was deleted.");
        const key = { messageId: input.messageId, userId: person.id, emoji: input.emoji };
        if (input.on) {
          await tx.messageReaction.upsert({ where: { messageId_userId_emoji: key }, create: key, update: {} });
        } else {
          await tx.messageReaction.deleteMany({ where: key });
        }
        const rows = await tx.messageReaction.findMany({
          where: { messageId: input.messageId },
          orderBy: { createdAt: "asc" },
          select: { emoji: true, userId: true, user: { select: { name: true } } },
        });
        const reactions = summarizeReactions(rows.map((reaction) => ({ ...reaction, userName: reaction.user.name })));
        uow.emit("reactions-changed", { messageId: input.messageId, reactions });
        return reactions;
      });
    },

    async deleteMessage(input: Target): Promise<MessageDTO> {
      return engine.inConversation(input.conversationId, async (tx, uow) => {
        const row = await ownMessage(tx, input);
        if (row.deletedAt) {
          // deleting twice is the same as once
          return toMessageDTO(await tx.message.findUniqueOrThrow({ where: { id: input.messageId }, include: messageInclude }));
        }
        // its attachments go with it: not downloadable by a link kept, nor readable by agents by name
        await tx.artifact.deleteMany({ where: { messageId: input.messageId, conversationId: input.conversationId } });
        const updated = await tx.message.update({
          where: { id: input.messageId },
          data: { body: "", mentions: [], deletedAt: new Date() },
          include: messageInclude,
        });
        const message = toMessageDTO(updated);
        await rewriteMessageEvents(tx, { conversationId: input.conversationId, message });
        await forgetSummaryCovering(tx, { conversationId: input.conversationId, createdAt: updated.createdAt });
        uow.emit("message-deleted", { message });
        return message;
      });
    },
  };
}

/**
 * The message's unit: one membership check (which also says the conversation exists),
 * the mentions resolved against who is there, the row, and a run for whoever answers.
 */
async function postInUnit(
  engine: Engine,
  tx: Tx,
  uow: UnitOfWork,
  input: { conversationId: string; author: { userId: string }; body: string; mentionHandles?: string[]; attachmentIds?: string[] },
): Promise<PostedMessage> {
  const { conversationId, body } = input;
  // a person writes only where they are a member, whoever called this
  await assertMember(tx, { id: input.author.userId, role: "member" }, conversationId);
  const members = await engine.agents.roster(tx, conversationId, { fresh: true });
  const picked = [...new Set((input.mentionHandles ?? []).map((handle) => handle.replace(/^@/, "").toLowerCase()))];
  for (const handle of picked) {
    if (!members.some((agent) => agent.handle === handle)) throw invalidInput(`mentions: @${handle} is not an agent in this conversation`);
  }
  const people = await tx.membership.findMany({
    where: { conversationId, user: { email: { not: API_USER_EMAIL } } },
    select: { user: { select: { id: true, name: true } } },
  });
  const workspaceAgents = await tx.agent.findMany({ select: { handle: true } });
  const conversation = await tx.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { commanderReplies: true } });
  const typed = resolveMentions(body, {
    conversationAgents: members.map((agent) => agent.handle),
    people: people.flatMap((member) => personHandles(member.user.name)),
    workspaceAgents: workspaceAgents.map((agent) => agent.handle),
  });
  const handles = [...new Set([...picked, ...typed.agents])];
  const mentioned = handles.map((handle) => members.find((agent) => agent.handle === handle)!);
  // people named by a typed @handle: a structured mention too (they are notified; no agent wakes)
  const mentionedPeople = typed.people.flatMap((handle) => {
    const person = people.find((member) => personHandles(member.user.name).includes(handle));
    return person ? [{ userId: person.user.id, handle }] : [];
  });
  const message = await tx.message.create({
    data: {
      conversationId,
      authorKind: "user",
      authorUserId: input.author.userId,
      body,
      mentions: [...mentioned.map((agent) => ({ agentId: agent.id, handle: agent.handle })), ...mentionedPeople],
    },
  });
  if (input.attachmentIds?.length) {
    const attached = await tx.artifact.updateMany({
      where: { id: { in: input.attachmentIds }, conversationId, messageId: null },
      data: { messageId: message.id },
    });
    if (attached.count !== input.attachmentIds.length) throw invalidInput("attachmentIds: unknown or already used upload");
  }
  const full = await tx.message.findUniqueOrThrow({ where: { id: message.id }, include: messageInclude });
  uow.emit("message-created", { message: toMessageDTO(full) });

  const who = addressees({
    mode: isCommanderReplyMode(conversation.commanderReplies) ? conversation.commanderReplies : "auto",
    mentionedAgents: handles,
    mentionedPeople: typed.people,
    outsideAgents: typed.outsideAgents,
  });
  const targets =
    who.kind === "agents" ? mentioned : who.kind === "commander" ? [await engine.agents.commanderFor(tx, conversationId)] : [];
  // a disabled agent starts nothing; the conversation is told why instead of waiting for an answer
  const [first, ...more] = targets.filter((agent) => agent.disabledAt !== null).map((agent) => agent.handle);
  if (first !== undefined) {
    engine.queueMessage(uow, { conversationId, author: { kind: "system" }, kind: "text", ...notices.agentsDisabled([first, ...more]) });
  }
  for (const agent of targets.filter((candidate) => candidate.disabledAt === null)) {
    await engine.queueRun(tx, uow, {
      id: randomUUID(),
      conversationId,
      agent,
      kind: agent.role === "commander" ? "chat" : "mention",
      input: body,
      request: { text: body, messageId: message.id },
      triggerMessageId: message.id,
    });
  }
  return { ...toMessageDTO(full), notInConversation: typed.outsideAgents };
}
