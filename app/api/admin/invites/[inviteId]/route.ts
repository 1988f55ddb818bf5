import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ inviteId: string }> };

/** Revokes an unused invite link: signing up through it fails from now on. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const admin = await requireAdmin(request);
  const { inviteId } = await context.params;
  return respond(routes.admin.revokeInvite, { invite: await getRuntime().app.admin.revokeInvite({ actor: admin, inviteId }) });
});
