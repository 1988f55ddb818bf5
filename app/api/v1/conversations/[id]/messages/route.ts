import { requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

const spec = routes.v1.postMessage;

export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const body = await readBody(spec, request);
      const message = await runtime.executor.postMessage({
        conversationId: id,
        author: { kind: "user", userId: runtime.apiUserId },
        body: body.body,
        mentionHandles: body.mentions,
      });
      return respond(spec, message);
    },
    { params: context.params, conversation: "id" },
  );
}
