import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { findUserForInvite, listMembers } from "@/server/services/admin-memberships.ts";
import { joinUserToConversation } from "@/server/socket/rooms.ts";

type Context = { params: Promise<{ conversationId: string }> };

export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return NextResponse.json({ members: await listMembers(getRuntime().prisma, { actor, conversationId }) });
});

export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  await requireMember(request, conversationId);
  const { email } = await parseJson(request, z.object({ email: z.email().max(200) }));
  const { prisma, services } = getRuntime();
  const user = await findUserForInvite(prisma, { conversationId, email });
  await services.addMember({ conversationId, userId: user.id });
  joinUserToConversation({ userId: user.id, conversationId });
  return NextResponse.json({ member: user }, { status: 201 });
});
