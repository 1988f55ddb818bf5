/**
 * A person's own messages after sending: edit and delete. Only the author may change a
 * message (403 for anyone else in the conversation, "not found" for anyone outside it,
 * checked here, where the row is read). Both go through the conversation's unit of work
 * so the change is a numbered conversation event every open tab applies live, and a
 * replay after reconnecting carries it too.
 *
 * What already happened stays: a run the message started keeps its input (the run's own
 * copy), an edit wakes nobody new. A deletion keeps a tombstone (the row, its author and
 * time) and clears the body and mentions; its attachments are no longer listed. The
 * stored events that carried the old text are rewritten in the same transaction
 * (rewriteMessageEvents), so no replay hands it out again.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import { messageInclude, toMessageDTO } from "../adapters/prisma/serializers.ts";
import { rewriteMessageEvents } from "../adapters/prisma/event-log.ts";
import { assertMember, type Actor } from "../auth/actor.ts";
import { BatonError, invalidInput, notFound } from "../protocol/errors.ts";
import type { UnitOfWork } from "../executor/unit-of-work.ts";
import type { MentionDTO, MessageDTO } from "../protocol/dto.ts";
import { MAX_MESSAGE_CHARS } from "../protocol/limits.ts";
import { tokenizeMentions } from "../protocol/mentions.ts";
import { isReactionEmoji, REACTION_EMOJI, summarizeReactions, type ReactionDTO } from "../protocol/reactions.ts";

type Tx = Prisma.TransactionClient;

/** The one thing these services need from the executor: a unit of work on a conversation. */
export interface ConversationUnits {
  inConversation<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>): Promise<T>;
}

interface Target {
  actor: Actor | null;
  conversationId: string;
  messageId: string;
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

export function createMessageServices(units: ConversationUnits) {
  return {
    async editMessage(input: Target & { body: string }): Promise<MessageDTO> {
      const body = input.body.trim();
      if (!body) throw invalidInput("body: write something, or delete the message");
      if (body.length > MAX_MESSAGE_CHARS) throw invalidInput(`body: longer than ${MAX_MESSAGE_CHARS} characters`);
      return units.inConversation(input.conversationId, async (tx, uow) => {
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
      return units.inConversation(input.conversationId, async (tx, uow) => {
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
      return units.inConversation(input.conversationId, async (tx, uow) => {
        const row = await ownMessage(tx, input);
        if (row.deletedAt) {
          // deleting twice is the same as once
          return toMessageDTO(await tx.message.findUniqueOrThrow({ where: { id: input.messageId }, include: messageInclude }));
        }
        const updated = await tx.message.update({
          where: { id: input.messageId },
          data: { body: "", mentions: [], deletedAt: new Date() },
          include: messageInclude,
        });
        const message = toMessageDTO(updated);
        await rewriteMessageEvents(tx, { conversationId: input.conversationId, message });
        uow.emit("message-deleted", { message });
        return message;
      });
    },
  };
}
