import { enforceRate, handle, requireMember } from "@/server/auth/guards.ts";
import { MESSAGE_RATE } from "@/server/auth/rate-limit.ts";
import { readBody, readQuery, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { notifyMentioned } from "@/server/socket/rooms.ts";

type Context = { params: Promise<{ conversationId: string }> };
const spec = routes.conversations.postMessage;

/** `?before=<message id>&limit=200`: a page of earlier messages, for members. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const user = await requireMember(request, conversationId);
  const query = readQuery(routes.conversations.earlierMessages, request);
  const page = await getRuntime().app.conversations.getEarlierMessages({ actor: user, conversationId, ...query });
  return respond(routes.conversations.earlierMessages, page);
});

export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const user = await requireMember(request, conversationId);
  enforceRate(`message:${user.id}`, MESSAGE_RATE);
  const input = await readBody(spec, request);
  const { notInConversation, ...message } = await getRuntime().app.messages.postMessage({
    conversationId,
    author: { kind: "user", userId: user.id },
    body: input.body,
    mentionHandles: [...new Set(input.mentionHandles)],
    attachmentIds: input.attachmentIds,
  });
  // the people it names hear of it live (never the author, who named themself)
  const mentionedPeople = message.mentions.flatMap((mention) =>
    "userId" in mention && mention.userId !== user.id ? [mention.userId] : [],
  );
  notifyMentioned({ userIds: mentionedPeople, mention: { conversationId, messageId: message.id, from: user.name } });
  return respond(spec, { message, notInConversation });
});
