import { handle, requireMember, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** People (with roles), agents, and — for owners — pending invitations. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireUser(request);
  return respond(routes.members.list, await getRuntime().app.members.listMembers({ actor, conversationId }));
});

/**
 * Owners invite a person by email. 202 with the same body whether or not an account
 * with that email exists, so the answer reveals nothing about who has signed up.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { email } = await readBody(routes.members.invite, request);
  return respond(routes.members.invite, await getRuntime().app.members.invite({ actor, conversationId, email }));
});
