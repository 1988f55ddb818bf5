import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

/** Admin: tokens and cost by model, agent, why the run was on its model, and day. */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const raw = Number(new URL(request.url).searchParams.get("days") ?? 30);
  const days = Number.isInteger(raw) && raw >= 1 && raw <= 366 ? raw : 30;
  return respond(routes.admin.usage, { usage: await getRuntime().app.admin.usage({ actor, days }) });
});
