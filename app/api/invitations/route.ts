import { handle, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

/** The signed-in person's pending conversation invitations. */
export const GET = handle(async (request: Request) => {
  const actor = await requireUser(request);
  return respond(routes.members.myInvitations, { invitations: await getRuntime().app.members.listMyInvitations({ actor }) });
});
