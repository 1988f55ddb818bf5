import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };
const spec = routes.members.addAgent;

/** An owner adds an agent by handle. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { handle: agentHandle } = await readBody(spec, request);
  const agent = await getRuntime().app.members.addAgent({ actor, conversationId, handle: agentHandle });
  return respond(spec, { agent });
});
