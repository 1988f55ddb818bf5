import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; messageId: string }> };

const services = () => getRuntime().app.messages;

/** Edits the author's own message (403 for anyone else); everyone in the conversation sees it live. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId, messageId } = await context.params;
  const user = await requireMember(request, conversationId);
  const { body } = await readBody(routes.conversations.editMessage, request);
  const message = await services().editMessage({ actor: user, conversationId, messageId, body });
  return respond(routes.conversations.editMessage, { message });
});

/** Deletes the author's own message, leaving a tombstone. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, messageId } = await context.params;
  const user = await requireMember(request, conversationId);
  const message = await services().deleteMessage({ actor: user, conversationId, messageId });
  return respond(routes.conversations.deleteMessage, { message });
});
