/**
 * Who the workspace's people are, for the admin pages (the audit log's "who" filter), and
 * the members dialog's people picker: the workspace's people whose name or email holds
 * the typed words, for a conversation's owners (they are the ones who add people). Only
 * people with an account appear; adding a typed email still reveals nothing (memberships.ts).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, conversationRoleOf, type Actor } from "../access/actor.ts";
import { BatonError } from "../protocol/errors.ts";
import type { PersonChoice } from "../protocol/rest/members.ts";
import { API_USER_EMAIL } from "../access/actor.ts";

const PEOPLE_PICKER_LIMIT = 8;

interface PersonSummary {
  id: string;
  name: string;
  email: string;
}

export async function searchPeople(
  prisma: PrismaClient,
  { actor, conversationId, query }: { actor: Actor; conversationId: string; query: string },
): Promise<PersonChoice[]> {
  if ((await conversationRoleOf(prisma, actor, conversationId)) !== "owner") {
    throw new BatonError("forbidden", "Only the conversation's owners add people.");
  }
  const words = query.trim();
  if (!words) return [];
  const people = await prisma.user.findMany({
    where: {
      // the automation user is added by admins on purpose, never picked by accident
      email: { not: API_USER_EMAIL },
      OR: [{ name: { contains: words, mode: "insensitive" } }, { email: { contains: words, mode: "insensitive" } }],
    },
    orderBy: { name: "asc" },
    take: PEOPLE_PICKER_LIMIT,
    select: { id: true, name: true, email: true, memberships: { where: { conversationId }, select: { id: true } } },
  });
  return people.map((person) => ({ id: person.id, name: person.name, email: person.email, member: person.memberships.length > 0 }));
}

/**
 * Everyone with a row in the user table, the automation user included (the audit log
 * records what it did), by name. Admins only: it lists every email address.
 */
export async function listPeopleForAdmin(prisma: PrismaClient, { actor }: { actor: Actor | null }): Promise<PersonSummary[]> {
  assertAdmin(actor);
  return prisma.user.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true, email: true } });
}
