import { enforceRate, handle, requireMember } from "@/server/auth/guards.ts";
import { MESSAGE_RATE } from "@/server/auth/rate-limit.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };
const spec = routes.conversations.postMessage;

export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const user = await requireMember(request, conversationId);
  enforceRate(`message:${user.id}`, MESSAGE_RATE);
  const input = await readBody(spec, request);
  const { notInConversation, ...message } = await getRuntime().executor.postMessage({
    conversationId,
    author: { kind: "user", userId: user.id },
    body: input.body,
    mentionHandles: [...new Set(input.mentionHandles)],
    attachmentIds: input.attachmentIds,
  });
  return respond(spec, { message, notInConversation });
});
