import { handle, requireUser } from "@/server/auth/guards.ts";
import { noContent } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { membershipServices } from "@/server/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string; agentId: string }> };

/** An owner removes an agent (never the commander). */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, agentId } = await context.params;
  const actor = await requireUser(request);
  await membershipServices().removeAgent({ actor, conversationId, agentId });
  getRuntime().executor.agentsChanged();
  return noContent(routes.members.removeAgent);
});
