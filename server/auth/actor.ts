/**
 * Data-boundary guards. Every function that reads or changes something a person may
 * not see takes the acting user and checks here, itself: a page, a layout or a
 * route handler checking first is a courtesy, not the boundary (Next renders a page
 * without its layouts when a request claims they are on screen already).
 *
 * A non-member gets the same "not found" as for a conversation that does not exist,
 * so these checks never reveal that one exists.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { BatonError, hasErrorCode, notFound } from "../protocol/errors.ts";

/** Who is acting: a signed-in person (a SessionUser is one) or the automation API's user. */
export interface Actor {
  id: string;
  role: "admin" | "member";
}

type Reader = PrismaClient | Prisma.TransactionClient;

function requireActor(actor: Actor | null | undefined): Actor {
  if (!actor?.id) throw new BatonError("unauthenticated", "Sign in first.");
  return actor;
}

/** Workspace admins only: agent prompts, plan history across conversations, usage, invites. */
export function assertAdmin(actor: Actor | null | undefined): Actor {
  const known = requireActor(actor);
  if (known.role !== "admin") throw new BatonError("forbidden", "Admins only.");
  return known;
}

/** Members of the conversation only (admins included only when they are members). */
export async function assertMember(db: Reader, actor: Actor | null | undefined, conversationId: string): Promise<Actor> {
  const known = requireActor(actor);
  const membership = await db.membership.findUnique({
    where: { conversationId_userId: { conversationId, userId: known.id } },
    select: { id: true },
  });
  if (!membership) throw notFound("conversation");
  return known;
}

/** A plan's conversation, for a member of it; a plan outside the actor's conversations is "not found". */
export async function assertPlanMember(db: Reader, actor: Actor | null | undefined, planId: string): Promise<{ conversationId: string }> {
  const plan = await db.plan.findUnique({ where: { id: planId }, select: { conversationId: true } });
  if (!plan) throw notFound("plan");
  try {
    await assertMember(db, actor, plan.conversationId);
  } catch (error) {
    // the plan's existence is as private as its conversation's
    if (hasErrorCode(error, "not_found")) throw notFound("plan");
    throw error;
  }
  return plan;
}

/** The conversation's role the actor acts with: admins who are members act as owners. */
export async function conversationRoleOf(db: Reader, actor: Actor | null | undefined, conversationId: string): Promise<"owner" | "member"> {
  const known = requireActor(actor);
  const membership = await db.membership.findUnique({
    where: { conversationId_userId: { conversationId, userId: known.id } },
    select: { role: true },
  });
  if (!membership) throw notFound("conversation");
  return known.role === "admin" || membership.role === "owner" ? "owner" : "member";
}

/** Owners (and admins who are members) only: membership, agents and settings of a conversation. */
export async function assertOwner(db: Reader, actor: Actor | null | undefined, conversationId: string): Promise<Actor> {
  if ((await conversationRoleOf(db, actor, conversationId)) !== "owner") {
    throw new BatonError("forbidden", "Only the conversation's owners can do that.");
  }
  return requireActor(actor);
}
