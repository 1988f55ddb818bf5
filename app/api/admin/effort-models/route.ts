import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

/** Admin: the model each effort level runs on (light, deep; standard is the agent's own). */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return respond(routes.admin.effortModels, { effortModels: await getRuntime().app.admin.effortModels({ actor }) });
});

export const PUT = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await readBody(routes.admin.setEffortModels, request);
  const effortModels = await getRuntime().app.admin.setEffortModels({ actor, input });
  return respond(routes.admin.setEffortModels, { effortModels });
});
