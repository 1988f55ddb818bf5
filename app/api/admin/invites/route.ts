import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

const spec = routes.admin.createInvite;

export const POST = handle(async (request: Request) => {
  const admin = await requireAdmin(request);
  const { role } = await readBody(spec, request);
  const invite = await getRuntime().app.admin.createInvite({ actor: admin, role });
  const url = new URL(`/sign-up?invite=${invite.token}`, request.url).toString();
  return respond(spec, { invite: { ...invite, expiresAt: invite.expiresAt.toISOString(), url } });
});
