import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { COMMANDER_REPLY_MODES } from "@/server/core/addressing.ts";
import { storableText } from "@/server/core/text.ts";
import { getRuntime } from "@/server/runtime.ts";
import { MAX_TITLE_LENGTH } from "@/server/services/conversation-manage.ts";
import { conversationManageServices } from "@/server/services/runtime-services.ts";

type Context = { params: Promise<{ conversationId: string }> };

/** The full snapshot; the client uses it on first load and when a replay would be too long. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  return NextResponse.json(await getRuntime().services.getSnapshot({ actor, conversationId }));
});

const settingsSchema = z
  .object({
    commanderReplies: z.enum(COMMANDER_REPLY_MODES).optional(),
    title: storableText().trim().min(1, "Give the conversation a title").max(MAX_TITLE_LENGTH).optional(),
    archived: z.boolean().optional(),
  })
  .strict()
  .refine((body) => body.commanderReplies !== undefined || body.title !== undefined || body.archived !== undefined, {
    message: "Send at least one of commanderReplies, title, archived",
  });

/**
 * Conversation settings, owners only: when the commander answers messages that address
 * no agent, the title, and whether it is archived. Answers with what changed.
 */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  // membership before the body: a non-member learns nothing, not even what the body lacks
  const actor = await requireMember(request, conversationId);
  const input = await parseJson(request, settingsSchema);
  const manage = conversationManageServices();
  const changed: Record<string, unknown> = {};
  if (input.commanderReplies !== undefined) {
    Object.assign(changed, await getRuntime().services.setCommanderReplies({ actor, conversationId, mode: input.commanderReplies }));
  }
  if (input.title !== undefined) changed.title = (await manage.rename({ actor, conversationId, title: input.title })).title;
  if (input.archived !== undefined) {
    changed.archivedAt = (await manage.setArchived({ actor, conversationId, archived: input.archived })).archivedAt;
  }
  return NextResponse.json(changed);
});

const deleteSchema = z.object({ confirm: z.literal(true, "Send { confirm: true } to delete the conversation and everything in it") });

/** Owners delete the conversation and everything in it; the body confirms it. 204 when done. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await parseJson(request, deleteSchema);
  await conversationManageServices().remove({ actor, conversationId });
  return new Response(null, { status: 204 });
});
