import { handle, requireUser } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string; invitationId: string }> };

/** An owner withdraws a pending invitation. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, invitationId } = await context.params;
  const actor = await requireUser(request);
  await membershipServices().revokeInvitation({ actor, conversationId, invitationId });
  return new Response(null, { status: 204 });
});
