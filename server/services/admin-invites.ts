/**
 * Admin: invite links listed with what became of each, and revoked before anyone uses
 * them. A revoke is one conditional update (unused, not yet revoked), audited in the same
 * transaction; claiming checks `revokedAt` too (auth/invites.ts), so a revoked link lets
 * nobody in, even one racing the revoke.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import { conflict, notFound } from "../protocol/errors.ts";
import type { AdminInvite, InviteState } from "../protocol/rest/admin.ts";
import { recordAudit } from "../access/audit.ts";

/** What became of a link: used and revoked are for good; an unused one expires with time. */
export function inviteState(invite: { usedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now = new Date()): InviteState {
  if (invite.usedAt) return "used";
  if (invite.revokedAt) return "revoked";
  return invite.expiresAt > now ? "open" : "expired";
}

/** Newest first. Admins only: a live token is a way in. */
export async function listInvitesForAdmin(prisma: PrismaClient, { actor }: { actor: Actor | null }): Promise<AdminInvite[]> {
  assertAdmin(actor);
  const invites = await prisma.invite.findMany({
    orderBy: { createdAt: "desc" },
    take: 50,
    select: { id: true, token: true, role: true, usedAt: true, revokedAt: true, expiresAt: true, createdAt: true },
  });
  const now = new Date();
  return invites.map((invite) => ({
    id: invite.id,
    token: invite.token,
    role: invite.role,
    state: inviteState(invite, now),
    createdAt: invite.createdAt.toISOString(),
    expiresAt: invite.expiresAt.toISOString(),
  }));
}

/** Revokes an unused link; revoking one already revoked is a no-op, a used one a conflict. */
export async function revokeInvite(
  prisma: PrismaClient,
  { actor, inviteId }: { actor: Actor | null; inviteId: string },
): Promise<{ id: string; state: InviteState }> {
  const admin = assertAdmin(actor);
  return prisma.$transaction(async (tx) => {
    const invite = await tx.invite.findUnique({ where: { id: inviteId }, select: { id: true, role: true, usedAt: true, revokedAt: true } });
    if (!invite) throw notFound("The invite link");
    if (invite.revokedAt) return { id: invite.id, state: "revoked" as const };
    const revoked = await tx.invite.updateMany({ where: { id: inviteId, usedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
    if (revoked.count !== 1) throw conflict("This invite link was already used: remove the person instead.");
    await recordAudit(tx, {
      actor: admin,
      action: "invite.revoked",
      target: { kind: "invite", id: invite.id },
      detail: { role: invite.role },
    });
    return { id: invite.id, state: "revoked" as const };
  });
}
