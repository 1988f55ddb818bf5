import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { readWorkspaceSettings } from "@/server/workspace/settings.ts";

/** Admin: each repository's pool use (used/limit) and its active slots. */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const { slotsPerRepository } = readWorkspaceSettings();
  return respond(routes.workspace.slots, await getRuntime().app.workspace.slotsOverview({ actor, limit: slotsPerRepository }));
});
