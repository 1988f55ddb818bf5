import { handle, requireUser } from "@/server/auth/guards.ts";
import { readBody, respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";

/** The signed-in person's personal access tokens (never their secrets). */
export const GET = handle(async (request: Request) => {
  const actor = await requireUser(request);
  return respond(routes.account.tokens, { tokens: await getRuntime().app.tokens.list({ actor }) });
});

/** Creates a token; the secret is in this answer and nowhere else, ever. */
export const POST = handle(async (request: Request) => {
  const actor = await requireUser(request);
  const input = await readBody(routes.account.createToken, request);
  const created = await getRuntime().app.tokens.create({ actor, ...input });
  return respond(routes.account.createToken, created, { headers: { "Cache-Control": "no-store" } });
});
