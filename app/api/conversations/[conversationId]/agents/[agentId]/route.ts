import { handle, requireUser } from "@/server/auth/guards.ts";
import { noContent } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; agentId: string }> };

/** An owner removes an agent (never the commander). */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, agentId } = await context.params;
  const actor = await requireUser(request);
  await getRuntime().app.members.removeAgent({ actor, conversationId, agentId });
  return noContent(routes.members.removeAgent);
});
