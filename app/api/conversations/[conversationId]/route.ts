import { handle, requireMember } from "@/server/auth/guards.ts";
import { noContent, readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import type { ResponseBody } from "@/server/protocol/rest/define.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The full snapshot (first load, and when a replay would be too long). Members only. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return respond(routes.conversations.get, await getRuntime().app.conversations.getSnapshot({ actor, conversationId }));
});

/**
 * Conversation settings, owners only: when the commander answers messages that address
 * no agent, the title, and whether it is archived. Answers with what changed.
 */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const input = await readBody(routes.conversations.settings, request);
  const manage = getRuntime().app.conversations;
  const changed: ResponseBody<typeof routes.conversations.settings> = {};
  if (input.commanderReplies !== undefined) {
    Object.assign(
      changed,
      await getRuntime().app.conversations.setCommanderReplies({ actor, conversationId, mode: input.commanderReplies }),
    );
  }
  if (input.title !== undefined) changed.title = (await manage.rename({ actor, conversationId, title: input.title })).title;
  if (input.archived !== undefined) {
    changed.archivedAt = (await manage.setArchived({ actor, conversationId, archived: input.archived })).archivedAt;
  }
  return respond(routes.conversations.settings, changed);
});

/** Owners delete the conversation and everything in it; the body confirms it. 204 when done. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await readBody(routes.conversations.remove, request);
  await getRuntime().app.conversations.remove({ actor, conversationId });
  return noContent(routes.conversations.remove);
});
