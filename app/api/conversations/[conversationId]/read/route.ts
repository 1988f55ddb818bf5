import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };
const spec = routes.conversations.markRead;

/** The reader's mark moves forward: the next visit's "new messages" line starts after it. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const { upTo } = await readBody(spec, request);
  const { lastReadAt } = await getRuntime().app.conversations.markRead({ actor, conversationId, upTo: upTo ? new Date(upTo) : undefined });
  return respond(spec, { lastReadAt: lastReadAt?.toISOString() ?? null });
});
