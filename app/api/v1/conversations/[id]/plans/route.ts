import { requireApiConversation, withApiToken } from "@/server/http/api-v1.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

// The plan JSON itself is validated by the core, exactly as the commander's tool input is.
const spec = routes.v1.submitPlan;

export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      await requireApiConversation(runtime, id);
      const raw = await readBody(spec, request);
      const { request: requestText, ...plan } = raw;
      const created = await runtime.executor.submitPlan({ conversationId: id, raw: plan, request: requestText, userId: runtime.apiUserId });
      return respond(spec, created);
    },
    { params: context.params, conversation: "id" },
  );
}
