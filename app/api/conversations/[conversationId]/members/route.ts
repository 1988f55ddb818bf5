import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireMember, requireUser } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** People (with roles), agents, and — for owners — pending invitations. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireUser(request);
  return NextResponse.json(await membershipServices().listMembers({ actor, conversationId }));
});

/**
 * Owners invite a person by email. 202 with the same body whether or not an account
 * with that email exists, so the answer reveals nothing about who has signed up.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { email } = await parseJson(request, z.object({ email: z.email().max(200) }));
  return NextResponse.json(await membershipServices().invite({ actor, conversationId, email }), { status: 202 });
});
