/**
 * Owners manage a conversation as a whole: rename, archive (and bring back), delete.
 * Each function takes the acting user and checks the role itself (the data boundary;
 * routes only parse input). A non-member gets "not found", a member "forbidden".
 *
 * - Archiving hides the conversation from every member's main sidebar list; it stays
 *   readable and writable under "Archived" and can be brought back.
 * - Deleting removes the conversation with everything in it (messages, plans, runs,
 *   files: the foreign keys cascade). It is refused while a plan is running or paused
 *   or an agent run is queued or running, so the executor never loses a conversation
 *   under a step; cancel the plan (or wait for the answer) first.
 *
 * Every change is written to the audit log in the same transaction and announced to
 * every member's sidebar through the notifier.
 */
import { MAX_CONVERSATION_TITLE_CHARS } from "../protocol/limits.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { BatonError } from "../protocol/errors.ts";
import { assertOwner } from "../auth/actor.ts";
import { recordAudit, type AuditActor } from "./audit.ts";

export interface ConversationChangeNotifier {
  /** the conversation's title or archived state changed: these users' sidebars refresh */
  conversationChanged(input: { conversationId: string; userIds: string[] }): void;
  /** the conversation is gone: these users' sockets leave its rooms and their sidebars refresh */
  conversationDeleted(input: { conversationId: string; userIds: string[] }): void;
}

export const silentConversationNotifier: ConversationChangeNotifier = {
  conversationChanged() {},
  conversationDeleted() {},
};

export function createConversationManageServices(prisma: PrismaClient, notifier: ConversationChangeNotifier = silentConversationNotifier) {
  const memberIds = async (conversationId: string) =>
    (await prisma.membership.findMany({ where: { conversationId }, select: { userId: true } })).map((row) => row.userId);

  return {
    async rename({ actor, conversationId, title }: { actor: AuditActor; conversationId: string; title: string }) {
      await assertOwner(prisma, actor, conversationId);
      const next = title.trim();
      if (!next) throw new BatonError("invalid_input", "title: give the conversation a title");
      if (next.length > MAX_CONVERSATION_TITLE_CHARS)
        throw new BatonError("invalid_input", `title: longer than ${MAX_CONVERSATION_TITLE_CHARS} characters`);
      const previous = await prisma.$transaction(async (tx) => {
        const row = await tx.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { title: true } });
        await tx.conversation.update({ where: { id: conversationId }, data: { title: next } });
        await recordAudit(tx, {
          actor,
          action: "conversation.renamed",
          conversationId,
          target: { kind: "conversation", id: conversationId },
          detail: { from: row.title, to: next },
        });
        return row.title;
      });
      if (previous !== next) notifier.conversationChanged({ conversationId, userIds: await memberIds(conversationId) });
      return { id: conversationId, title: next };
    },

    async setArchived({ actor, conversationId, archived }: { actor: AuditActor; conversationId: string; archived: boolean }) {
      await assertOwner(prisma, actor, conversationId);
      const archivedAt = await prisma.$transaction(async (tx) => {
        const row = await tx.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { archivedAt: true } });
        if ((row.archivedAt !== null) === archived) return row.archivedAt;
        const at = archived ? new Date() : null;
        await tx.conversation.update({ where: { id: conversationId }, data: { archivedAt: at } });
        await recordAudit(tx, {
          actor,
          action: archived ? "conversation.archived" : "conversation.unarchived",
          conversationId,
          target: { kind: "conversation", id: conversationId },
        });
        return at;
      });
      notifier.conversationChanged({ conversationId, userIds: await memberIds(conversationId) });
      return { id: conversationId, archivedAt: archivedAt?.toISOString() ?? null };
    },

    async remove({ actor, conversationId }: { actor: AuditActor; conversationId: string }) {
      await assertOwner(prisma, actor, conversationId);
      const userIds = await prisma.$transaction(async (tx) => {
        // serialise with membership changes and plan starts of this conversation
        await tx.$executeRaw`SELECT 1 FROM "Conversation" WHERE id = ${conversationId} FOR UPDATE`;
        const livePlans = await tx.plan.count({ where: { conversationId, status: { in: ["running", "paused"] } } });
        const liveRuns = await tx.run.count({ where: { conversationId, status: { in: ["queued", "running"] } } });
        if (livePlans > 0) throw new BatonError("conflict", "A plan is still running here: cancel it before deleting the conversation.");
        if (liveRuns > 0)
          throw new BatonError("conflict", "An agent is still answering here: wait for it before deleting the conversation.");
        const members = await tx.membership.findMany({ where: { conversationId }, select: { userId: true } });
        const row = await tx.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { title: true } });
        await tx.conversation.delete({ where: { id: conversationId } });
        // the audit row keeps the id and title; the conversation it names is gone
        await recordAudit(tx, {
          actor,
          action: "conversation.deleted",
          conversationId,
          target: { kind: "conversation", id: conversationId },
          detail: { title: row.title },
        });
        return members.map((member) => member.userId);
      });
      notifier.conversationDeleted({ conversationId, userIds });
    },
  };
}
