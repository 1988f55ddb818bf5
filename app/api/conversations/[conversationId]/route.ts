import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { COMMANDER_REPLY_MODES } from "@/server/core/addressing.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The full snapshot; the client uses it on first load and when a replay would be too long. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return NextResponse.json(await getRuntime().services.getSnapshot({ actor, conversationId }));
});

const settingsSchema = z.object({ commanderReplies: z.enum(COMMANDER_REPLY_MODES) });

/** Conversation settings: when the commander answers messages that address no agent. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const input = await parseJson(request, settingsSchema);
  return NextResponse.json(await getRuntime().services.setCommanderReplies({ actor, conversationId, mode: input.commanderReplies }));
});
