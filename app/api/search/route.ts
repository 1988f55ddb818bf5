import { handle, requireUser } from "@/server/auth/guards.ts";
import { readQuery, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

const spec = routes.search.messages;

/** Full-text search over the messages of the caller's own conversations: `?q=words&limit=20`. */
export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const { q, limit } = readQuery(spec, request);
  const results = await getRuntime().app.messages.search({ actor: user, query: q, limit });
  return respond(spec, { results });
});
