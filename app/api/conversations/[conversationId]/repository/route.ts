import { handle, requireMember } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The repository and base branch this conversation's workspace steps work on. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return respond(
    routes.workspace.conversationRepository,
    await getRuntime().app.workspace.getConversationRepository({ actor, conversationId }),
  );
});

/** Link (an admin who owns the conversation) or unlink (any owner) the repository. */
export const PUT = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const input = await readBody(routes.workspace.linkRepository, request);
  return respond(
    routes.workspace.linkRepository,
    await getRuntime().app.workspace.setConversationRepository({
      actor,
      conversationId,
      repositoryId: input.repositoryId,
      baseBranch: input.baseBranch,
    }),
  );
});
