import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; runId: string }> };

/**
 * A member's Stop on a live run: a direct mention's answer or the commander's reply
 * stops (its final state goes out as a run update); a step's run stops that step only;
 * a commander's decision run stops its plan. The answer says which.
 * 404 for a run of another conversation, 409 for one that has already ended.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, runId } = await context.params;
  const user = await requireMember(request, conversationId);
  await readBody(routes.conversations.stopRun, request);
  const result = await getRuntime().app.plans.stopRun({ actor: user, conversationId, runId, byName: user.name });
  return respond(routes.conversations.stopRun, result);
});
