import { z } from "zod";
import { handle, parseJson, requireMember, requireUser } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string; userId: string }> };

/** An owner removes someone; anyone removes themselves (leaves). 204 when done. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, userId } = await context.params;
  const actor = await requireUser(request);
  await membershipServices().removeMember({ actor, conversationId, userId });
  return new Response(null, { status: 204 });
});

/** An owner makes someone an owner or a member. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId, userId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { role } = await parseJson(request, z.object({ role: z.enum(["owner", "member"]) }));
  await membershipServices().setRole({ actor, conversationId, userId, role });
  return Response.json({ userId, role });
});
