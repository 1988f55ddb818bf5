import { z } from "zod";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** An owner adds an agent by handle. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const { handle: agentHandle } = await parseJson(
    request,
    z.object({ handle: z.string().regex(/^@?[a-z0-9_-]{1,40}$/i, "an agent handle") }),
  );
  const agent = await membershipServices().addAgent({ actor, conversationId, handle: agentHandle });
  return Response.json({ agent }, { status: 201 });
});
