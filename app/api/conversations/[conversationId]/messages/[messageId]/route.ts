import { NextResponse } from "next/server";
import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { createMessageServices } from "@/server/services/messages.ts";
import { MAX_MESSAGE_CHARS } from "@/server/protocol/limits.ts";

const editSchema = z.object({
  body: storableText()
    .max(MAX_MESSAGE_CHARS, `A message can hold at most ${MAX_MESSAGE_CHARS} characters.`)
    .refine((body) => body.trim().length > 0, "Write something, or delete the message."),
});

type Context = { params: Promise<{ conversationId: string; messageId: string }> };

const services = () => createMessageServices(getRuntime().executor);

/** Edits the author's own message (403 for anyone else); everyone in the conversation sees it live. */
export const PATCH = handle(async (request: Request, context: Context) => {
  const { conversationId, messageId } = await context.params;
  const user = await requireMember(request, conversationId);
  const { body } = await parseJson(request, editSchema);
  const message = await services().editMessage({ actor: user, conversationId, messageId, body });
  return NextResponse.json({ message });
});

/** Deletes the author's own message, leaving a tombstone. */
export const DELETE = handle(async (request: Request, context: Context) => {
  const { conversationId, messageId } = await context.params;
  const user = await requireMember(request, conversationId);
  const message = await services().deleteMessage({ actor: user, conversationId, messageId });
  return NextResponse.json({ message });
});
