import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The full snapshot; the client uses it on first load and when a replay would be too long. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return respond(routes.conversations.get, await getRuntime().services.getSnapshot({ actor, conversationId }));
});

/** Conversation settings: when the commander answers messages that address no agent. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const input = await readBody(routes.conversations.settings, request);
  const settings = await getRuntime().services.setCommanderReplies({ actor, conversationId, mode: input.commanderReplies });
  return respond(routes.conversations.settings, settings);
});
