import { handle, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

type Context = { params: Promise<{ invitationId: string }> };
const spec = routes.members.answerInvitation;

/** The invitee accepts (joins the conversation) or declines. */
export const POST = handle(async (request: Request, context: Context) => {
  const { invitationId } = await context.params;
  const actor = await requireUser(request);
  const { accept } = await readBody(spec, request);
  return respond(spec, await getRuntime().app.members.answerInvitation({ actor, invitationId, accept }));
});
