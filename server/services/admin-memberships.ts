/**
 * Member lookups for the web app: adding a registered user to a conversation by
 * email, and listing who is in one.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertMember, type Actor } from "../auth/actor.ts";

export class MembershipError extends Error {
  constructor(
    readonly code: "not_found" | "conflict",
    message: string,
  ) {
    super(message);
  }
}

export async function findUserForInvite(
  prisma: PrismaClient,
  { conversationId, email }: { conversationId: string; email: string },
): Promise<{ id: string; name: string }> {
  const user = await prisma.user.findUnique({ where: { email: email.toLowerCase() }, select: { id: true, name: true } });
  if (!user) throw new MembershipError("not_found", "No user with that email has signed up yet.");
  const existing = await prisma.membership.findUnique({ where: { conversationId_userId: { conversationId, userId: user.id } } });
  if (existing) throw new MembershipError("conflict", `${user.name} is already a member.`);
  return user;
}

export async function listMembers(prisma: PrismaClient, { actor, conversationId }: { actor: Actor | null; conversationId: string }) {
  await assertMember(prisma, actor, conversationId);
  const rows = await prisma.membership.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { role: true, user: { select: { id: true, name: true, email: true } } },
  });
  return rows.map((row) => ({ ...row.user, role: row.role }));
}
