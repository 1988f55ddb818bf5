import { NextResponse } from "next/server";
import { handle, parseJson, requireAdmin } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { listRepositories, registerRepository, repositoryInputSchema } from "@/server/workspace/repositories.ts";
import { readWorkspaceSettings } from "@/server/workspace/settings.ts";

/** Admin: the repositories agents may work on. */
export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return NextResponse.json({ repositories: await listRepositories(getRuntime().prisma, { actor }) });
});

/** Admin: register a repository by server path or clone URL (the clone happens here). */
export const POST = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await parseJson(request, repositoryInputSchema);
  const { repositoriesDir } = readWorkspaceSettings();
  const repository = await registerRepository(getRuntime().prisma, { actor, input, repositoriesDir });
  return NextResponse.json({ repository }, { status: 201 });
});
