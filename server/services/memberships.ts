/**
 * Who is in a conversation and who may change that. Roles: `owner` and `member`;
 * workspace admins act as owners in conversations they belong to. Every function
 * takes the acting user and checks the role itself (this is the data boundary;
 * routes only parse input).
 *
 * - Owners add people (by email invitation), add and remove agents, remove people
 *   and change roles. Anyone can leave.
 * - The last owner cannot leave, be removed or be demoted while other people remain:
 *   they hand ownership over first (GitHub's rule for the last organisation owner).
 *   The last person in a conversation may always leave.
 * - Adding by email never reveals whether an account exists: it always creates a
 *   pending invitation addressed to the email and answers the same way. A person with
 *   (or later creating) an account with that email sees it and accepts or declines
 *   (GitHub's collaborator invitations).
 * - Adding the automation user (what BATON_API_TOKEN acts as) is admin-only and
 *   direct: it cannot accept invitations.
 *
 * Every change is written to the audit log in the same transaction and announced
 * through the notifier (live sidebars, members dialogs, room eviction).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { BatonError, conflict, forbidden } from "../protocol/errors.ts";
import { assertOwner, conversationRoleOf } from "../access/actor.ts";
import { recordAudit, type AuditActor } from "../access/audit.ts";
import type { MembersView } from "../protocol/rest/members.ts";
import { API_USER_EMAIL } from "../access/actor.ts";

export type ConversationRole = "owner" | "member";

export interface MembershipNotifier {
  /** the user's sockets start receiving the conversation's activity; their sidebar refreshes */
  userAdded(input: { userId: string; conversationId: string }): void;
  /** the user's sockets leave the conversation's rooms at once; their sidebar refreshes */
  userRemoved(input: { userId: string; conversationId: string }): void;
  /** everybody looking at the conversation refreshes its people and agents */
  membersChanged(input: { conversationId: string }): void;
  /** the user's pending invitations changed */
  invitationsChanged(input: { userId: string }): void;
}

export const silentNotifier: MembershipNotifier = {
  userAdded() {},
  userRemoved() {},
  membersChanged() {},
  invitationsChanged() {},
};

export function createMembershipServices(prisma: PrismaClient, notifier: MembershipNotifier = silentNotifier) {
  /** The actor's effective role, or 404 for a non-member (same answer as a missing conversation). */
  const roleOf = (actor: AuditActor, conversationId: string): Promise<ConversationRole> =>
    conversationRoleOf(prisma, actor, conversationId);

  async function requireOwner(actor: AuditActor, conversationId: string): Promise<void> {
    await assertOwner(prisma, actor, conversationId);
  }

  return {
    roleOf,

    async listMembers({ actor, conversationId }: { actor: AuditActor; conversationId: string }): Promise<MembersView> {
      const role = await roleOf(actor, conversationId);
      const [people, agents, invitations] = await Promise.all([
        prisma.membership.findMany({
          where: { conversationId },
          orderBy: { createdAt: "asc" },
          select: { role: true, user: { select: { id: true, name: true, email: true } } },
        }),
        prisma.conversationAgent.findMany({
          // a disabled agent is not offered (the composer's @-list follows this roster)
          where: { conversationId, agent: { disabledAt: null } },
          orderBy: { createdAt: "asc" },
          select: { agent: { select: { id: true, handle: true, name: true, role: true } } },
        }),
        role === "owner"
          ? prisma.conversationInvitation.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" } })
          : Promise.resolve([]),
      ]);
      return {
        you: { role, canManage: role === "owner", isAdmin: actor.role === "admin" },
        people: people.map((row) => ({ ...row.user, role: row.role === "owner" ? "owner" : "member" })),
        agents: agents.map((row) => row.agent),
        invitations: invitations.map((row) => ({ id: row.id, email: row.email, createdAt: row.createdAt.toISOString() })),
      };
    },

    /**
     * Owners invite by email. The answer is the same whether or not an account exists
     * (or is already a member): `{ email, status: "invited" }`.
     */
    async invite({ actor, conversationId, email }: { actor: AuditActor; conversationId: string; email: string }) {
      await requireOwner(actor, conversationId);
      const address = email.trim().toLowerCase();
      if (address === API_USER_EMAIL) return addAutomationUser({ actor, conversationId });
      const user = await prisma.user.findUnique({ where: { email: address }, select: { id: true } });
      const alreadyMember = user
        ? await prisma.membership.findUnique({
            where: { conversationId_userId: { conversationId, userId: user.id } },
            select: { id: true },
          })
        : null;
      if (!alreadyMember) {
        const created = await prisma.$transaction(async (tx) => {
          const existing = await tx.conversationInvitation.findUnique({
            where: { conversationId_email: { conversationId, email: address } },
          });
          if (existing) return null;
          const invitation = await tx.conversationInvitation.create({ data: { conversationId, email: address, invitedById: actor.id } });
          await recordAudit(tx, {
            actor,
            action: "invitation.created",
            conversationId,
            target: { kind: "invitation", id: invitation.id },
            detail: { email: address },
          });
          return invitation;
        });
        if (created) {
          notifier.membersChanged({ conversationId });
          if (user) notifier.invitationsChanged({ userId: user.id });
        }
      }
      return { email: address, status: "invited" as const };
    },

    addAutomationUser,

    async revokeInvitation({ actor, conversationId, invitationId }: { actor: AuditActor; conversationId: string; invitationId: string }) {
      await requireOwner(actor, conversationId);
      const invitation = await prisma.conversationInvitation.findFirst({ where: { id: invitationId, conversationId } });
      if (!invitation) throw new BatonError("not_found", "No such invitation.");
      await prisma.$transaction(async (tx) => {
        await tx.conversationInvitation.delete({ where: { id: invitation.id } });
        await recordAudit(tx, {
          actor,
          action: "invitation.revoked",
          conversationId,
          target: { kind: "invitation", id: invitation.id },
          detail: { email: invitation.email },
        });
      });
      notifier.membersChanged({ conversationId });
      const invitee = await prisma.user.findUnique({ where: { email: invitation.email }, select: { id: true } });
      if (invitee) notifier.invitationsChanged({ userId: invitee.id });
    },

    /** Invitations addressed to the actor's email. */
    async listMyInvitations({ actor }: { actor: AuditActor }) {
      const user = await prisma.user.findUnique({ where: { id: actor.id }, select: { email: true } });
      if (!user) return [];
      const rows = await prisma.conversationInvitation.findMany({
        where: { email: user.email.toLowerCase() },
        orderBy: { createdAt: "asc" },
        include: { conversation: { select: { id: true, title: true } } },
      });
      const inviters = await prisma.user.findMany({
        where: { id: { in: rows.map((row) => row.invitedById) } },
        select: { id: true, name: true },
      });
      const nameById = new Map(inviters.map((inviter) => [inviter.id, inviter.name]));
      return rows.map((row) => ({
        id: row.id,
        conversation: row.conversation,
        invitedBy: nameById.get(row.invitedById) ?? "someone",
        createdAt: row.createdAt.toISOString(),
      }));
    },

    async answerInvitation({ actor, invitationId, accept }: { actor: AuditActor; invitationId: string; accept: boolean }) {
      const user = await prisma.user.findUnique({ where: { id: actor.id }, select: { email: true } });
      const invitation = await prisma.conversationInvitation.findUnique({ where: { id: invitationId } });
      // someone else's invitation gets the same answer as a missing one
      if (!user || !invitation || invitation.email !== user.email.toLowerCase()) throw new BatonError("not_found", "No such invitation.");
      const { conversationId } = invitation;
      if (!accept) {
        await prisma.$transaction(async (tx) => {
          await tx.conversationInvitation.delete({ where: { id: invitation.id } });
          await recordAudit(tx, {
            actor,
            action: "invitation.declined",
            conversationId,
            target: { kind: "invitation", id: invitation.id },
            detail: { email: invitation.email },
          });
        });
        notifier.membersChanged({ conversationId });
        notifier.invitationsChanged({ userId: actor.id });
        return { conversationId, accepted: false };
      }
      await addMembership({ actor, conversationId, userId: actor.id, via: "invitation", invitationId: invitation.id });
      notifier.invitationsChanged({ userId: actor.id });
      return { conversationId, accepted: true };
    },

    /** Owners remove anyone; anyone removes themselves (leaves). */
    async removeMember({ actor, conversationId, userId }: { actor: AuditActor; conversationId: string; userId: string }) {
      const leaving = userId === actor.id;
      if (leaving) await roleOf(actor, conversationId);
      else await requireOwner(actor, conversationId);
      await prisma.$transaction(async (tx) => {
        // serialise membership changes of one conversation, so two owners cannot both leave
        await tx.$executeRaw`SELECT 1 FROM "Conversation" WHERE id = ${conversationId} FOR UPDATE`;
        const target = await tx.membership.findUnique({ where: { conversationId_userId: { conversationId, userId } } });
        if (!target) throw new BatonError("not_found", "That person is not in this conversation.");
        if (target.role === "owner") {
          const owners = await tx.membership.count({ where: { conversationId, role: "owner" } });
          const people = await tx.membership.count({ where: { conversationId } });
          if (owners === 1 && people > 1) {
            throw conflict(
              leaving
                ? "You are the only owner: make someone else an owner before you leave."
                : "That person is the only owner: make someone else an owner first.",
            );
          }
        }
        await tx.membership.delete({ where: { id: target.id } });
        await recordAudit(tx, {
          actor,
          action: leaving ? "member.left" : "member.removed",
          conversationId,
          target: { kind: "user", id: userId },
          detail: { role: target.role },
        });
      });
      notifier.userRemoved({ userId, conversationId });
      notifier.membersChanged({ conversationId });
    },

    async setRole({
      actor,
      conversationId,
      userId,
      role,
    }: {
      actor: AuditActor;
      conversationId: string;
      userId: string;
      role: ConversationRole;
    }) {
      await requireOwner(actor, conversationId);
      await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT 1 FROM "Conversation" WHERE id = ${conversationId} FOR UPDATE`;
        const target = await tx.membership.findUnique({ where: { conversationId_userId: { conversationId, userId } } });
        if (!target) throw new BatonError("not_found", "That person is not in this conversation.");
        if (target.role === role) throw conflict(`Already ${role === "owner" ? "an owner" : "a member"}.`);
        if (role === "member" && (await tx.membership.count({ where: { conversationId, role: "owner" } })) === 1) {
          throw conflict("That is the only owner: make someone else an owner first.");
        }
        await tx.membership.update({ where: { id: target.id }, data: { role } });
        await recordAudit(tx, {
          actor,
          action: "member.role_changed",
          conversationId,
          target: { kind: "user", id: userId },
          detail: { from: target.role, to: role },
        });
      });
      notifier.membersChanged({ conversationId });
    },

    async addAgent({ actor, conversationId, handle }: { actor: AuditActor; conversationId: string; handle: string }) {
      await requireOwner(actor, conversationId);
      const agent = await prisma.agent.findUnique({ where: { handle: handle.replace(/^@/, "").toLowerCase() } });
      if (!agent) throw new BatonError("not_found", `No agent @${handle.replace(/^@/, "")}.`);
      await prisma.$transaction(async (tx) => {
        const existing = await tx.conversationAgent.findUnique({
          where: { conversationId_agentId: { conversationId, agentId: agent.id } },
        });
        if (existing) throw conflict(`@${agent.handle} is already in this conversation.`);
        await tx.conversationAgent.create({ data: { conversationId, agentId: agent.id } });
        await recordAudit(tx, {
          actor,
          action: "agent.added",
          conversationId,
          target: { kind: "agent", id: agent.id },
          detail: { handle: agent.handle },
        });
      });
      notifier.membersChanged({ conversationId });
      return { id: agent.id, handle: agent.handle, name: agent.name, role: agent.role };
    },

    async removeAgent({ actor, conversationId, agentId }: { actor: AuditActor; conversationId: string; agentId: string }) {
      await requireOwner(actor, conversationId);
      await prisma.$transaction(async (tx) => {
        const link = await tx.conversationAgent.findUnique({
          where: { conversationId_agentId: { conversationId, agentId } },
          include: { agent: { select: { handle: true, role: true } } },
        });
        if (!link) throw new BatonError("not_found", "That agent is not in this conversation.");
        if (link.agent.role === "commander") throw conflict("The commander runs this conversation's plans and cannot be removed.");
        await tx.conversationAgent.delete({ where: { conversationId_agentId: { conversationId, agentId } } });
        await recordAudit(tx, {
          actor,
          action: "agent.removed",
          conversationId,
          target: { kind: "agent", id: agentId },
          detail: { handle: link.agent.handle },
        });
      });
      notifier.membersChanged({ conversationId });
    },
  };

  /** Exposes the conversation to BATON_API_TOKEN: admins only. */
  async function addAutomationUser({ actor, conversationId }: { actor: AuditActor; conversationId: string }) {
    await requireOwner(actor, conversationId);
    if (actor.role !== "admin") throw forbidden("Only admins can give the automation API access to a conversation.");
    const apiUser = await prisma.user.findUnique({ where: { email: API_USER_EMAIL }, select: { id: true } });
    if (!apiUser) throw new BatonError("not_found", "The automation user does not exist.");
    await addMembership({ actor, conversationId, userId: apiUser.id, via: "direct" });
    return { email: API_USER_EMAIL, status: "invited" as const };
  }

  async function addMembership(input: {
    actor: AuditActor;
    conversationId: string;
    userId: string;
    via: "direct" | "invitation";
    invitationId?: string;
  }) {
    const added = await prisma.$transaction(async (tx) => {
      if (input.invitationId) await tx.conversationInvitation.deleteMany({ where: { id: input.invitationId } });
      const existing = await tx.membership.findUnique({
        where: { conversationId_userId: { conversationId: input.conversationId, userId: input.userId } },
      });
      if (existing) return false;
      await tx.membership.create({ data: { conversationId: input.conversationId, userId: input.userId, role: "member" } });
      await recordAudit(tx, {
        actor: input.actor,
        action: input.via === "invitation" ? "invitation.accepted" : "member.added",
        conversationId: input.conversationId,
        target: { kind: "user", id: input.userId },
        detail: { role: "member" },
      });
      return true;
    });
    if (added) {
      notifier.userAdded({ userId: input.userId, conversationId: input.conversationId });
      notifier.membersChanged({ conversationId: input.conversationId });
    }
  }
}
