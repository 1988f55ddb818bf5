import { handle, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { noContent } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

type Context = { params: Promise<{ conversationId: string; invitationId: string }> };

/** An owner withdraws a pending invitation. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, invitationId } = await context.params;
  const actor = await requireUser(request);
  await getRuntime().app.members.revokeInvitation({ actor, conversationId, invitationId });
  return noContent(routes.members.revokeInvitation);
});
