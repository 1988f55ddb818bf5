import { withApiToken } from "@/server/http/api-v1.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { listAuditEvents } from "@/server/services/audit.ts";

/** The audit log for an admin's token with the admin scope (newest first; `?before=<id>` pages). */
export async function GET(request: Request) {
  return withApiToken(
    request,
    async (runtime, principal) => {
      const before = new URL(request.url).searchParams.get("before") ?? undefined;
      const events = await listAuditEvents(runtime.prisma, {
        actor: { id: principal.userId, role: principal.userRole, kind: "token" },
        before,
      });
      return respond(routes.v1.audit, { events });
    },
    { scope: "admin" },
  );
}
