import { z } from "zod";
import { handle, parseJson, requireUser } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ invitationId: string }> };

/** The invitee accepts (joins the conversation) or declines. */
export const POST = handle(async (request: Request, context: Context) => {
  const { invitationId } = await context.params;
  const actor = await requireUser(request);
  const { accept } = await parseJson(request, z.object({ accept: z.boolean() }));
  return Response.json(await membershipServices().answerInvitation({ actor, invitationId, accept }));
});
