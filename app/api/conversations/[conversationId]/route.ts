import { NextResponse } from "next/server";
import { handle, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The full snapshot; the client uses it on first load and when a replay would be too long. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return NextResponse.json(await getRuntime().services.getSnapshot({ actor, conversationId }));
});
