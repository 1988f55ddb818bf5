import { handle, requireMember, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { noContent, readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

type Context = { params: Promise<{ conversationId: string; userId: string }> };

/** An owner removes someone; anyone removes themselves (leaves). 204 when done. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, userId } = await context.params;
  const actor = await requireUser(request);
  await getRuntime().app.members.removeMember({ actor, conversationId, userId });
  return noContent(routes.members.remove);
});

/** An owner makes someone an owner or a member. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId, userId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { role } = await readBody(routes.members.setRole, request);
  await getRuntime().app.members.setRole({ actor, conversationId, userId, role });
  return respond(routes.members.setRole, { userId, role });
});
