import { listConversationEvents } from "@/server/adapters/prisma/event-log.ts";
import { HttpError, requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(request, async (runtime) => {
    const { id } = await context.params;
    await requireApiConversation(runtime, id);
    const url = new URL(request.url);
    const after = Number(url.searchParams.get("after") ?? "0");
    const limit = Number(url.searchParams.get("limit") ?? "500");
    if (!Number.isInteger(after) || after < 0) throw new HttpError(400, "invalid_input", "after: must be a non-negative integer");
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new HttpError(400, "invalid_input", "limit: must be 1..1000");
    const events = await listConversationEvents(runtime.prisma, { conversationId: id, afterSeq: after, limit });
    return Response.json({ events, lastSeq: events.at(-1)?.seq ?? after });
  });
}
