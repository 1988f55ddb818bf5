import { z } from "zod";
import { handle, parseJson, requireUser } from "@/server/auth/guards.ts";
import { createApiToken, listApiTokens, MAX_TOKEN_DAYS, TOKEN_SCOPES } from "@/server/auth/api-tokens.ts";
import { getRuntime } from "@/server/runtime.ts";

/** The signed-in person's personal access tokens (never their secrets). */
export const GET = handle(async (request: Request) => {
  const actor = await requireUser(request);
  return Response.json({ tokens: await listApiTokens(getRuntime().prisma, { actor }) });
});

const createSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(TOKEN_SCOPES)).min(1).max(3),
  expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS),
});

/** Creates a token; the secret is in this answer and nowhere else, ever. */
export const POST = handle(async (request: Request) => {
  const actor = await requireUser(request);
  const input = await parseJson(request, createSchema);
  const created = await createApiToken(getRuntime().prisma, { actor, ...input });
  return Response.json(created, { status: 201, headers: { "Cache-Control": "no-store" } });
});
