import { handle, requireMember } from "@/server/auth/guards.ts";
import { readQuery, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };
const spec = routes.members.people;

/** The people picker: `?q=words` matched against the workspace's names and emails (owners only). */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const { q } = readQuery(spec, request);
  return respond(spec, { people: await getRuntime().app.members.searchPeople({ actor, conversationId, query: q }) });
});
