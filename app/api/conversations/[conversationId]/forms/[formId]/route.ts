import { handle, requireFormIn, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; formId: string }> };
const spec = routes.conversations.answerForm;

/** Answers a blocked step's form; the executor validates the values against the form and accepts one answer. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, formId } = await context.params;
  const user = await requireMember(request, conversationId);
  await requireFormIn(conversationId, formId);
  const { values } = await readBody(spec, request);
  const form = await getRuntime().app.forms.answerForm({ formId, userId: user.id, values });
  return respond(spec, { form });
});
