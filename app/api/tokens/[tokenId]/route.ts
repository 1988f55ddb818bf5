import { handle, requireUser } from "@/server/auth/guards.ts";
import { revokeApiToken } from "@/server/auth/api-tokens.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ tokenId: string }> };

/** Revokes a token at once: the next request with it gets 401. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { tokenId } = await context.params;
  const actor = await requireUser(request);
  return Response.json({ token: await revokeApiToken(getRuntime().prisma, { actor, tokenId }) });
});
