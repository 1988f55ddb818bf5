import { listConversationEvents } from "@/server/adapters/prisma/event-log.ts";
import { requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";
import { intParam } from "@/server/http/params.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const url = new URL(request.url);
      const after = intParam(url.searchParams.get("after"), { name: "after", min: 0, fallback: 0 });
      const limit = intParam(url.searchParams.get("limit"), { name: "limit", min: 1, max: 1000, fallback: 500 });
      const events = await listConversationEvents(runtime.prisma, { conversationId: id, afterSeq: after, limit });
      return respond(routes.v1.events, { events, lastSeq: events.at(-1)?.seq ?? after });
    },
    { params: context.params, conversation: "id" },
  );
}
