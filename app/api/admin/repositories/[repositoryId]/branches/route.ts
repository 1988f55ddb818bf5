import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ repositoryId: string }> };

/** Admin: the repository's branches, to choose a conversation's base branch from. */
export const GET = handle(async (request: Request, context: Context) => {
  const { repositoryId } = await context.params;
  const actor = await requireAdmin(request);
  return respond(routes.workspace.repositoryBranches, await getRuntime().app.workspace.listRepositoryBranches({ actor, repositoryId }));
});
