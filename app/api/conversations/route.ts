import { handle, requireUser } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { joinUserToConversation } from "@/server/socket/rooms.ts";

export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const conversations = await getRuntime().app.conversations.listConversations({ userId: user.id });
  return respond(routes.conversations.list, { conversations });
});

export const POST = handle(async (request: Request) => {
  const user = await requireUser(request);
  const input = await readBody(routes.conversations.create, request);
  const created = await getRuntime().app.conversations.createConversation({ ...input, userId: user.id });
  joinUserToConversation({ userId: user.id, conversationId: created.id });
  return respond(routes.conversations.create, created);
});
