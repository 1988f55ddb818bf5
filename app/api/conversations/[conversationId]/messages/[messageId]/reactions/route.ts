import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; messageId: string }> };

/** Adds or removes the member's emoji reaction; everyone in the conversation sees it live. */
export const PUT = handle(async (request: Request, context: Context) => {
  const { conversationId, messageId } = await context.params;
  const user = await requireMember(request, conversationId);
  const { emoji, on } = await readBody(routes.conversations.setReaction, request);
  const reactions = await getRuntime().app.messages.setReaction({ actor: user, conversationId, messageId, emoji, on });
  return respond(routes.conversations.setReaction, { reactions });
});
