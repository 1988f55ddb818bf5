import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readQuery, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

/** Admin: tokens and cost by model, agent, why the run was on its model, and day. */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const { days = 30 } = readQuery(routes.admin.usage, request);
  return respond(routes.admin.usage, { usage: await getRuntime().app.admin.usage({ actor, days }) });
});
