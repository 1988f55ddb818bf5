import { handle, requireAdmin } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { readWorkspaceSettings } from "@/server/workspace/settings.ts";

/** Admin: the repositories agents may work on. */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return respond(routes.workspace.repositories, { repositories: await getRuntime().app.workspace.listRepositories({ actor }) });
});

/** Admin: register a repository by server path or clone URL (the clone happens here). */
export const POST = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await readBody(routes.workspace.registerRepository, request);
  const { repositoriesDir } = readWorkspaceSettings();
  const repository = await getRuntime().app.workspace.registerRepository({ actor, input, repositoriesDir });
  return respond(routes.workspace.registerRepository, { repository });
});
