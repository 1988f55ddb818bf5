import { handle, requireUser } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ tokenId: string }> };

/** Revokes a token at once: the next request with it gets 401. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { tokenId } = await context.params;
  const actor = await requireUser(request);
  return respond(routes.account.revokeToken, { token: await getRuntime().app.tokens.revoke({ actor, tokenId }) });
});
