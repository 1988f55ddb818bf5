/**
 * Invite links: an admin creates one, a newcomer signs up through it once.
 * Claiming is a single conditional update, so two sign-ups cannot share a token.
 * The first person needs none: they become the admin (auth/auth.ts).
 */
import crypto from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import { recordAudit } from "../access/audit.ts";

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export type InviteRole = "admin" | "member";

export async function createInvite(
  prisma: PrismaClient,
  { actor, role }: { actor: Actor | null; role: InviteRole },
): Promise<{ id: string; token: string; expiresAt: Date; role: InviteRole }> {
  const createdById = assertAdmin(actor).id;
  const token = crypto.randomBytes(24).toString("base64url");
  const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
  const id = await prisma.$transaction(async (tx) => {
    const invite = await tx.invite.create({ data: { token, role, createdById, expiresAt } });
    // only admins create invites (routes/guards); the audit names the role granted
    await recordAudit(tx, {
      actor: { id: createdById, role: "admin" },
      action: "invite.created",
      target: { kind: "invite", id: invite.id },
      detail: { role },
    });
    return invite.id;
  });
  return { id, token, expiresAt, role };
}

/** Marks the invite as taken (usedAt) if it is unused, unrevoked and unexpired; null otherwise. */
export async function claimInvite(prisma: PrismaClient, token: string): Promise<{ role: InviteRole } | null> {
  const now = new Date();
  const claimed = await prisma.invite.updateMany({
    where: { token, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) return null;
  const invite = await prisma.invite.findUnique({ where: { token }, select: { role: true } });
  return { role: invite?.role === "admin" ? "admin" : "member" };
}

export async function recordInviteUse(prisma: PrismaClient, { token, userId }: { token: string; userId: string }) {
  const invite = await prisma.invite.findUnique({ where: { token }, select: { id: true, role: true } });
  const used = await prisma.invite.updateMany({ where: { token, usedById: null }, data: { usedById: userId } });
  if (invite && used.count === 1) {
    await recordAudit(prisma, {
      actor: { id: userId, role: invite.role === "admin" ? "admin" : "member" },
      action: "invite.used",
      target: { kind: "invite", id: invite.id },
      detail: { role: invite.role },
    });
  }
}

/** Whether a token can still be used (the sign-up page says so before the form is filled). */
export async function isInviteUsable(prisma: PrismaClient, token: string): Promise<boolean> {
  const invite = await prisma.invite.findUnique({ where: { token }, select: { usedAt: true, revokedAt: true, expiresAt: true } });
  return Boolean(invite && !invite.usedAt && !invite.revokedAt && invite.expiresAt > new Date());
}

/** People have a credential account; the seeded automation user (API token) does not count. */
export async function hasHumanUser(prisma: PrismaClient): Promise<boolean> {
  return (await prisma.user.count({ where: { accounts: { some: {} } } })) > 0;
}
